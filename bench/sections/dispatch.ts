import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startHost, type HostProcess } from '../support/host-process.js';
import { load, openLoad } from '../support/load.js';
import { cpuMicros, percentile, rssMb } from '../support/process-stats.js';

/** How the host runs for a dispatch measurement: one process, or API and worker processes apart (`--role`). */
export type Topology = 'all' | 'api+worker';

export interface Spread {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * Submit -> adapter called under a fixed submission rate, with where the time went, read from the task rows
 * (`created_at` is the database's clock, `started_at` and `finished_at` the worker's, this machine's):
 * - the dispatch: `started_at` (marked generating, the adapter is called next) minus `created_at`;
 * - `run`: `finished_at - started_at` (execution and result, up to the success the settlement writes);
 * - `busyWorkers`: tasks running at once on average over the load (sum of run times / the load's span):
 *   near WORKER_CONCURRENCY with growing dispatch times means the workers are saturated; far below it
 *   means tasks wait while workers sleep (a wake-up problem).
 * Until 2026-11-27 it also split the dispatch at the generation job's fetch (pg-boss's `started_on`), read
 * from the job's row; a success now removes its job in its own commit (gengate_remove_job), so that split
 * comes from `npm run bench:dispatch -- --steps` (the processes' own moments, dispatch-probe.mjs).
 */
export interface DispatchResult {
  readonly topology: Topology;
  readonly rate: number;
  readonly seconds: number;
  readonly samples: number[];
  readonly n: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly run: Spread;
  readonly busyWorkers: number;
  /** Tasks running at once on average over the moments when at least one task was waiting (sampled every ms). */
  readonly busyWhileQueued: number;
  /** Share of the load's span during which at least one task was waiting. */
  readonly queuedShare: number;
  readonly submissionP99Ms: number;
  readonly non2xx: number;
  /** CPU per task of each process (µs), and its RSS (MB) after the load. */
  readonly processes: { readonly role: string; readonly cpuMicrosPerTask: number; readonly rssMb: number }[];
}

const CHAT_BODY = JSON.stringify({ prompt: 'bench', llm_params: { max_tokens: 8 } });

function spread(xs: readonly number[]): Spread {
  return { p50: percentile(xs, 50), p99: percentile(xs, 99), max: xs.length ? Math.max(...xs) : NaN };
}

/** Starts the topology's processes on `env` (hostEnv), the API one first in the list; `root`: another checkout's host (startHost). */
export async function startTopology(topology: Topology, env: Record<string, string>, root?: string): Promise<{ api: HostProcess; all: { role: string; host: HostProcess }[]; stop(): Promise<void> }> {
  if (topology === 'all') {
    const host = await startHost({ ...env, ROLE: 'all' }, root);
    return { api: host, all: [{ role: 'all', host }], stop: () => host.stop() };
  }
  const api = await startHost({ ...env, ROLE: 'api' }, root);
  const worker = await startHost({ ...env, ROLE: 'worker' }, root).catch(async (err: unknown) => {
    await api.stop();
    throw err;
  });
  return {
    api,
    all: [
      { role: 'api', host: api },
      { role: 'worker', host: worker },
    ],
    stop: async () => {
      await Promise.all([api.stop(), worker.stop()]);
    },
  };
}

/** Drives `rate` submissions/s for `seconds` at the topology's API process, waits until every task started, and reads the rows. */
export async function dispatchUnderLoad(
  topology: Topology,
  processes: { api: HostProcess; all: { role: string; host: HostProcess }[] },
  databaseUrl: string,
  keys: readonly string[],
  opts: { rate: number; seconds: number; paced?: boolean },
): Promise<DispatchResult> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  try {
    const since = (await pool.query<{ t: Date }>('select clock_timestamp() as t')).rows[0]?.t ?? new Date();
    const cpu0 = processes.all.map((p) => cpuMicros(p.host.pid));
    const r = opts.paced
      ? await pacedLoad(`${processes.api.url}/api/v1/run/sandbox.echo-chat`, keys, opts)
      : await load({
      url: `${processes.api.url}/api/v1/run/sandbox.echo-chat`,
      method: 'POST',
      body: CHAT_BODY,
      connections: 20,
      overallRate: opts.rate,
      durationSeconds: opts.seconds,
      headerSets: keys.map((key) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' })),
    });
    // Every task of the load ended (its job ends in the same commit: removed by a success, completed by a failure).
    for (;;) {
      const left = await pool.query<{ n: number }>(`select count(*)::int as n from gengate.tasks where status in ('waiting', 'generating') and created_at >= $1`, [since]);
      if ((left.rows[0]?.n ?? 0) === 0) break;
      await sleep(50);
    }
    const cpu = processes.all.map((p, i) => cpuMicros(p.host.pid) - (cpu0[i] ?? 0));
    const rows = (
      await pool.query<{ dispatch: number; run: number; created_at: Date; started_at: Date; finished_at: Date }>(
        `select t.created_at, t.started_at, t.finished_at, extract(epoch from (t.started_at - t.created_at)) * 1000 as dispatch,
                extract(epoch from (t.finished_at - t.started_at)) * 1000 as run
         from gengate.tasks t
         where t.created_at >= $1 and t.started_at is not null and t.finished_at is not null`,
        [since],
      )
    ).rows;
    const samples = rows.map((x) => Number(x.dispatch));
    const starts = rows.map((x) => x.started_at.getTime());
    const ends = rows.map((x) => x.finished_at.getTime());
    const span = rows.length ? Math.max(...ends) - Math.min(...starts) : 0;
    const runs = rows.map((x) => Number(x.run));
    const occupancy = waitingVersusBusy(rows.map((x) => ({ created: x.created_at.getTime(), started: x.started_at.getTime(), ended: x.finished_at.getTime() })));
    return {
      topology,
      rate: opts.rate,
      seconds: opts.seconds,
      samples,
      n: samples.length,
      p50Ms: percentile(samples, 50),
      p99Ms: percentile(samples, 99),
      run: spread(runs),
      busyWorkers: span > 0 ? runs.reduce((a, b) => a + b, 0) / span : 0,
      ...occupancy,
      submissionP99Ms: r.p99Ms,
      non2xx: r.non2xx,
      processes: processes.all.map((p, i) => ({ role: p.role, cpuMicrosPerTask: (cpu[i] ?? 0) / Math.max(1, samples.length), rssMb: rssMb(p.host.pid) })),
    };
  } finally {
    await pool.end();
  }
}

/** From each task's created / started / ended times (ms): how many ran at once while others waited. */
export function waitingVersusBusy(jobs: readonly { created: number; started: number; ended: number }[]): { busyWhileQueued: number; queuedShare: number } {
  if (jobs.length === 0) return { busyWhileQueued: 0, queuedShare: 0 };
  const t0 = Math.min(...jobs.map((j) => j.created));
  const t1 = Math.max(...jobs.map((j) => j.ended));
  const n = Math.ceil(t1 - t0) + 1;
  // Difference arrays over 1 ms slots: +1 where a state begins, -1 where it ends.
  const waiting = new Int32Array(n + 1);
  const running = new Int32Array(n + 1);
  for (const j of jobs) {
    const c = Math.floor(j.created - t0);
    const s = Math.max(c, Math.floor(j.started - t0));
    const e = Math.max(s, Math.floor(j.ended - t0));
    waiting[c]! += 1;
    waiting[s]! -= 1;
    running[s]! += 1;
    running[e]! -= 1;
  }
  let w = 0;
  let r = 0;
  let queuedSlots = 0;
  let busySum = 0;
  for (let i = 0; i < n; i++) {
    w += waiting[i] ?? 0;
    r += running[i] ?? 0;
    if (w > 0) {
      queuedSlots += 1;
      busySum += r;
    }
  }
  return { busyWhileQueued: queuedSlots ? busySum / queuedSlots : 0, queuedShare: queuedSlots / n };
}

/** The submissions as an open-loop load (support/load.ts openLoad: one every 1/rate s whatever the answers). */
export async function pacedLoad(url: string, keys: readonly string[], opts: { rate: number; seconds: number }): Promise<{ p99Ms: number; non2xx: number }> {
  const r = await openLoad({ url, method: 'POST', body: CHAT_BODY, rate: opts.rate, durationSeconds: opts.seconds, headerSets: keys.map((key) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' })) });
  return { p99Ms: r.p99Ms, non2xx: r.non2xx + r.errors };
}
