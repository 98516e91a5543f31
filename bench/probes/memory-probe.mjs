// Loaded into the host processes the bench starts (node --import): on SIGUSR2 it writes where the
// process's memory is to $GENGATE_PROBE_DIR/memory-<pid>-<n>.json (docs/benchmarks.md, "Memory"):
// process.memoryUsage(), V8's heap spaces (committed, used, resident), /proc/self/smaps_rollup, the
// thread count, and, with --expose-gc, the same after a full collection (what is live). With
// GENGATE_PROBE_HEAP_SNAPSHOTS=<dir> it also writes a heap snapshot there on each signal (heap-<pid>-<n>.heapsnapshot,
// for bench/support/heap-diff.ts; a snapshot itself takes a full collection first). It changes nothing else in the process.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';

const dir = process.env.GENGATE_PROBE_DIR;
const snapshots = process.env.GENGATE_PROBE_HEAP_SNAPSHOTS;
const mb = (n) => Math.round((n / 1048576) * 10) / 10;

function snapshot() {
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1] ?? NaN);
  const usage = process.memoryUsage();
  const heap = v8.getHeapStatistics();
  return {
    rssMb: mb(usage.rss),
    smapsRollupMb: { rss: kb('Rss') / 1024, anonymous: kb('Anonymous') / 1024, sharedClean: kb('Shared_Clean') / 1024, privateClean: kb('Private_Clean') / 1024, privateDirty: kb('Private_Dirty') / 1024 },
    memoryUsageMb: { heapTotal: mb(usage.heapTotal), heapUsed: mb(usage.heapUsed), external: mb(usage.external), arrayBuffers: mb(usage.arrayBuffers) },
    v8Mb: { totalPhysical: mb(heap.total_physical_size), malloced: mb(heap.malloced_memory), peakMalloced: mb(heap.peak_malloced_memory) },
    spacesMb: Object.fromEntries(
      v8.getHeapSpaceStatistics()
        .filter((s) => s.space_size > 0)
        .map((s) => [s.space_name, { committed: mb(s.space_size), used: mb(s.space_used_size), resident: mb(s.physical_space_size) }]),
    ),
    threads: readdirSync('/proc/self/task').length,
  };
}

if (dir) {
  let n = 0;
  process.on('SIGUSR2', () => {
    const before = snapshot();
    let afterFullGc = null;
    if (typeof globalThis.gc === 'function') {
      globalThis.gc();
      afterFullGc = snapshot();
    }
    if (snapshots) v8.writeHeapSnapshot(join(snapshots, `heap-${process.pid}-${n}.heapsnapshot`));
    writeFileSync(join(dir, `memory-${process.pid}-${n++}.json`), JSON.stringify({ pid: process.pid, role: process.env.ROLE ?? null, before, afterFullGc }));
  });
}
