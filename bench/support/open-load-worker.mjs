// The open-loop load generator's loop (bench/support/load.ts openLoad), run in a worker thread: its own V8
// isolate, whose heap holds only this load's objects. In the bench's main isolate, grown by the run's earlier
// autocannon loads to hundreds of MB, its collections (scavenges of 5-9 ms, mark-compacts of 50 ms) paused
// the loop, and every answer read after a pause was timed late: the generator's pauses measured as the
// server's latency (docs/benchmarks.md, "What a run does").
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const o = workerData;
const total = Math.round(o.rate * o.durationSeconds);
const latencies = new Float64Array(total);
let done = 0;
let non2xx = 0;
let errors = 0;
let sent = 0;
const inflight = [];
const agent = new Agent({ keepAlive: true, maxSockets: 1_024 });
const target = new URL(o.url);
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const t0 = performance.now();
const send = (i) =>
  new Promise((resolve) => {
    const started = performance.now();
    const req = request(target, { method: o.method ?? 'GET', headers: o.headerSets[i % o.headerSets.length] ?? {}, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) non2xx++;
        latencies[done++] = performance.now() - started;
        resolve();
      });
      res.on('error', () => {
        errors++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end(o.body);
  });
while (sent < total) {
  const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * o.rate) + 1);
  while (sent < due) inflight.push(send(sent++));
  await new Promise((r) => setTimeout(r, Math.max(0, (sent / o.rate) * 1000 - (performance.now() - t0))));
}
await Promise.all(inflight);
delay.disable();
agent.destroy();
const seconds = (performance.now() - t0) / 1000;
const sorted = latencies.subarray(0, done).sort();
const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
parentPort.postMessage({
  requests: total,
  rps: done / seconds,
  p50Ms: at(50),
  p99Ms: at(99),
  non2xx,
  errors,
  generatorDelayP99Ms: delay.percentile(99) / 1e6,
  generatorDelayMaxMs: delay.max / 1e6,
});
