// Opt-in (npm run bench:dispatch -- --statements): loaded into the host processes the bench starts, it
// times every statement from the call of pg's Client.query to its answer (the round trip as the process
// sees it: queueing, network, the server's work, lock waits) and the event loop's delay, and writes them
// at exit to $GENGATE_PROBE_DIR/statements-<pid>.json. It patches pg for the process it runs in: for
// diagnosis only, never in a record.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const dir = process.env.GENGATE_PROBE_DIR;
if (dir) {
  const pg = createRequire(join(process.cwd(), 'package.json'))('pg');
  const original = pg.Client.prototype.query;
  const stats = new Map();
  const record = (key, t0) => {
    const ms = performance.now() - t0;
    const s = stats.get(key) ?? { n: 0, totalMs: 0, maxMs: 0 };
    s.n += 1;
    s.totalMs += ms;
    s.maxMs = Math.max(s.maxMs, ms);
    stats.set(key, s);
  };
  const timed = (f, key, t0) => (...args) => {
    record(key, t0);
    return f(...args);
  };
  pg.Client.prototype.query = function (config, values, callback) {
    const text = typeof config === 'string' ? config : (config?.text ?? '');
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 80);
    const t0 = performance.now();
    // pg-pool passes a callback; pg's pipelined Query objects carry one; plain calls return a promise.
    if (typeof values === 'function') values = timed(values, key, t0);
    else if (typeof callback === 'function') callback = timed(callback, key, t0);
    else if (config && typeof config.callback === 'function') config.callback = timed(config.callback, key, t0);
    const result = original.call(this, config, values, callback);
    if (result && typeof result.then === 'function') result.then(() => record(key, t0), () => record(key, t0));
    return result;
  };
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  process.on('exit', () => {
    const statements = [...stats]
      .map(([text, s]) => ({ text, n: s.n, meanMs: Math.round((s.totalMs / s.n) * 100) / 100, totalMs: Math.round(s.totalMs), maxMs: Math.round(s.maxMs) }))
      .sort((a, b) => b.totalMs - a.totalMs);
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    writeFileSync(join(dir, `statements-${process.pid}.json`), JSON.stringify({ pid: process.pid, role: process.env.ROLE ?? null, eventLoopDelayMs: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) }, statements }));
  });
}
