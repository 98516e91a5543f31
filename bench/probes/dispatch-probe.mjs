// Opt-in (npm run bench:dispatch -- --steps): loaded into the host processes the bench starts, it notes
// the moments of one task's dispatch as each process sees them, on the machine's clock (timeOrigin +
// performance.now(), ms): in the API process the submission's wake-up NOTIFY written (with the
// submission, in the same write) and answered (after the commit); in the worker the NOTIFYs received on
// gengate_jobs_ready for the generation queue, each generation fetch sent and returned (with its tasks),
// and each `generating` update sent. Written at exit to $GENGATE_PROBE_DIR/dispatch-<pid>.json. It
// patches pg for the process it runs in: for diagnosis only, never in a record.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const dir = process.env.GENGATE_PROBE_DIR;
if (dir) {
  const pg = createRequire(join(process.cwd(), 'package.json'))('pg');
  const now = () => performance.timeOrigin + performance.now();
  const wakes = []; // [taskId, sent, answered]
  const notified = []; // received
  const fetches = []; // [sent, returned, taskIds]
  const generating = []; // [taskId, sent]
  const kindOf = (text) => {
    if (/pg_notify\(\$1, \$2\) where exists/.test(text)) return 'wake';
    if (/j\.name = 'gengate-generate'\s[\s\S]*SKIP LOCKED/.test(text)) return 'fetch';
    if (/set status = 'generating'/.test(text)) return 'generating';
    return null;
  };
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    const text = typeof config === 'string' ? config : (config?.text ?? '');
    const kind = kindOf(text);
    if (!kind) return original.call(this, config, values, callback);
    const vals = Array.isArray(values) ? values : (config?.values ?? []);
    const sent = now();
    if (kind === 'generating') generating.push([String(vals[0]), sent]);
    const done = (res) => {
      if (kind === 'wake') wakes.push([String(vals[2]), sent, now()]);
      else if (kind === 'fetch') fetches.push([sent, now(), (res?.rows ?? []).map((r) => r?.data?.taskId).filter(Boolean)]);
    };
    const wrap = (f) => (err, res) => {
      done(res);
      return f(err, res);
    };
    if (typeof values === 'function') values = wrap(values);
    else if (typeof callback === 'function') callback = wrap(callback);
    else if (config && typeof config.callback === 'function') config.callback = wrap(config.callback);
    const result = original.call(this, config, values, callback);
    if (result && typeof result.then === 'function') result.then(done, () => undefined);
    return result;
  };
  const connect = pg.Client.prototype.connect;
  pg.Client.prototype.connect = function (...args) {
    this.on('notification', (msg) => {
      if (msg.channel === 'gengate_jobs_ready' && msg.payload?.startsWith('gengate-generate ')) notified.push(now());
    });
    return connect.apply(this, args);
  };
  process.on('exit', () => {
    writeFileSync(join(dir, `dispatch-${process.pid}.json`), JSON.stringify({ pid: process.pid, role: process.env.ROLE ?? null, wakes, notified, fetches, generating }));
  });
}
