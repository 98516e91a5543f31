// Opt-in (npm run bench:poll-alloc): loaded into the host processes the bench starts, SIGWINCH starts
// counting the bytes the process allocates on V8's heap (v8.GCProfiler: what each collection found in
// use minus what the previous one left, plus the growth since the last), and the next SIGWINCH writes
// { bytes, collections } to $GENGATE_PROBE_DIR/alloc-<pid>.json. Nothing is patched; the profiler only
// records each collection's heap statistics.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';

const dir = process.env.GENGATE_PROBE_DIR;
let profiler = null;
let usedAtStart = 0;
process.on('SIGWINCH', () => {
  if (!dir) return;
  if (!profiler) {
    profiler = new v8.GCProfiler();
    usedAtStart = v8.getHeapStatistics().used_heap_size;
    profiler.start();
    return;
  }
  const { statistics } = profiler.stop();
  profiler = null;
  let left = usedAtStart;
  let bytes = 0;
  for (const s of statistics) {
    bytes += s.beforeGC.heapStatistics.usedHeapSize - left;
    left = s.afterGC.heapStatistics.usedHeapSize;
  }
  bytes += v8.getHeapStatistics().used_heap_size - left;
  writeFileSync(join(dir, `alloc-${process.pid}.json`), JSON.stringify({ bytes, collections: statistics.length }));
});
