import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSandboxAdapter } from '@gengate/adapters';
import { createGengate, MemoryBlobStore } from '@gengate/core';
import { ManualPaymentProcessor } from '@gengate/host';
import { createPgStores, DEFAULT_SCHEMA } from '@gengate/host/wiring';
import pg from 'pg';
import { startHost, type HostProcess } from '../support/host-process.js';
import { load, openLoad, type LoadResult, type OpenLoadResult } from '../support/load.js';
import { cpuMicros, localPostmasterOf, percentile, perRequestCpu, rssMb, serverCpuMicros } from '../support/process-stats.js';

export interface Measured extends LoadResult {
  readonly cpuMicrosPerRequest: number;
  /** The part of cpuMicrosPerRequest spent on V8's background threads (compilers, parallel GC). */
  readonly v8ThreadsMicrosPerRequest: number;
}

/** The bench's environment for the host: zero-latency sandbox, keys without limits, no per-user queueing in the way. */
export function hostEnv(databaseUrl: string, worker: boolean): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    RUN_WORKER: String(worker),
    SANDBOX_LATENCY_MS: '0',
    TASKS_RUNNING_PER_USER_CHAT: '10000',
    TASKS_QUEUED_PER_USER: '1000000',
    CALLBACK_ALLOW_PRIVATE: 'true',
    CALLBACK_RETRY_DELAY_SECONDS: '1',
  };
}

/** Users with one key each (no limits), created through the core's admin use case on the same database. */
export async function createKeys(databaseUrl: string, count: number): Promise<string[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const { stores, unitOfWork } = createPgStores(pool, null, { schema: DEFAULT_SCHEMA });
  const gengate = createGengate({
    adapters: [createSandboxAdapter()],
    stores,
    unitOfWork,
    blobStore: new MemoryBlobStore(),
    resultUrls: { urlFor: (k) => k },
    paymentProcessor: new ManualPaymentProcessor(),
  });
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    keys.push((await gengate.admin.createUser({ email: `bench-${Date.now()}-${i}-${Math.random().toString(36).slice(2)}@example.com`, credits: 100_000_000 })).api_key);
  }
  await pool.end();
  return keys;
}

const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const CHAT_BODY = JSON.stringify({ prompt: 'bench', llm_params: { max_tokens: 8 } });

/** One load against the host, with the host's own CPU time per request. */
export async function measure(host: HostProcess, opts: Parameters<typeof load>[0]): Promise<Measured> {
  return perRequestCpu(host.pid, () => load(opts));
}

/** One open-loop load (a fixed arrival rate) against the host, with the host's own CPU time per request. */
export async function measureOpen(host: HostProcess, opts: Parameters<typeof openLoad>[0]): Promise<Measured & OpenLoadResult> {
  return perRequestCpu(host.pid, () => openLoad(opts));
}

export async function submission(host: HostProcess, keys: readonly string[], connections: number, users: number, seconds: number): Promise<Measured> {
  return measure(host, {
    url: `${host.url}/api/v1/run/sandbox.echo-chat`,
    method: 'POST',
    body: CHAT_BODY,
    connections,
    durationSeconds: seconds,
    headerSets: keys.slice(0, users).map(auth),
  });
}

async function countRows(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<number> {
  return (await pool.query<{ n: number }>(sql, values)).rows[0]?.n ?? 0;
}

/**
 * Full pipeline: submissions with the worker on, until no task is left unfinished. Tasks/s and CPU per task
 * count the tasks that ended (success or fail) since the start: a submission the host refused (a loaded
 * machine: a 5xx, a timeout) adds no task and a task that failed (the database out of connections) still ran,
 * so neither leaves the wait hanging; both are told (`refused`, `failed`). Gives up after `maxWaitMs`.
 */
export async function pipeline(
  host: HostProcess,
  databaseUrl: string,
  key: string,
  tasks: number,
  connections: number,
  maxWaitMs = 300_000,
): Promise<{ tasksPerSecond: number; cpuMicrosPerTask: number; dbCpuMicrosPerTask: number | null; seconds: number; failed: number; refused: number }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // A server shared with other jobs may be out of connections for a moment: a read is made again.
  const again = async <T>(read: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (err) {
        if (attempt >= 50) throw err;
        await sleep(200);
      }
    }
  };
  // The wait reads the unfinished tasks only (the partial index tasks_unfinished). Until 2026-11-27 it
  // counted every task by status every 20 ms: in `npm run bench`, whose submission loads leave ~50,000
  // tasks in the table, that count read them all 50 times a second, on the database's CPU (counted as the
  // pipeline's) and on the two cores the pipeline was measured on.
  const unfinished = () =>
    again(async () => (await pool.query<{ n: number }>(`select count(*)::int as n from gengate.tasks where status in ('waiting', 'generating')`)).rows[0]?.n ?? 0);
  const since = (await pool.query<{ t: Date }>('select clock_timestamp() as t')).rows[0]?.t ?? new Date(0);
  const postmaster = localPostmasterOf((await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid ?? -1);
  const db0 = postmaster === null ? null : serverCpuMicros(postmaster);
  const cpu0 = cpuMicros(host.pid);
  const started = performance.now();
  const r = await load({ url: `${host.url}/api/v1/run/sandbox.echo-chat`, method: 'POST', body: CHAT_BODY, connections, amount: tasks, headerSets: [auth(key)] });
  let open = await unfinished();
  while (open > 0 && performance.now() - started < maxWaitMs) {
    await sleep(20);
    open = await unfinished();
  }
  const cpu = cpuMicros(host.pid) - cpu0;
  const db1 = postmaster === null ? null : serverCpuMicros(postmaster);
  // After the measured window: the tasks the load wrote, how they ended, and the load's span from their own
  // times (the database's clock): from the first task written to the last one ended. autocannon ends an
  // `amount` load on its once-a-second tick, so the wall time around it came in whole seconds (1,500 tasks
  // in 4.0 or 6.0 s: tasks/s moved in steps of a fifth).
  const done = await again(
    async () =>
      (
        await pool.query<{ success: number; fail: number; s: number | null }>(
          `select count(*) filter (where status = 'success')::int as success, count(*) filter (where status = 'fail')::int as fail,
                  extract(epoch from max(finished_at) - min(created_at))::float8 as s
             from gengate.tasks where created_at >= $1`,
          [since],
        )
      ).rows[0] ?? { success: 0, fail: 0, s: null },
  );
  await pool.end();
  if (open > 0) throw new Error(`pipeline: ${open} tasks still unfinished after ${maxWaitMs / 1000} s`);
  const seconds = done.s ?? (performance.now() - started) / 1000;
  const ended = Math.max(1, done.success + done.fail);
  return {
    tasksPerSecond: ended / seconds,
    cpuMicrosPerTask: cpu / ended,
    dbCpuMicrosPerTask: db0 === null || db1 === null ? null : (db1 - db0) / ended,
    seconds,
    failed: done.fail,
    refused: tasks - (r.requests - r.non2xx),
  };
}

export async function submitOne(host: HostProcess, key: string, body: string = CHAT_BODY): Promise<string> {
  const res = await fetch(`${host.url}/api/v1/run/sandbox.echo-chat`, { method: 'POST', headers: auth(key), body });
  const json = (await res.json()) as { task_id?: string };
  if (!json.task_id) throw new Error(`submission refused: ${JSON.stringify(json)}`);
  return json.task_id;
}

/** Submit -> adapter called at idle: one submission every 20 ms, each task's started_at minus its created_at. */
export async function dispatchIdle(host: HostProcess, databaseUrl: string, key: string, count: number): Promise<number[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  try {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(await submitOne(host, key));
      await sleep(20);
    }
    while ((await countRows(pool, `select count(*)::int as n from gengate.tasks where id = any($1::uuid[]) and started_at is null`, [ids])) > 0) await sleep(50);
    return (await pool.query<{ ms: number }>(`select extract(epoch from (started_at - created_at)) * 1000 as ms from gengate.tasks where id = any($1::uuid[])`, [ids])).rows.map((r) => Number(r.ms));
  } finally {
    await pool.end();
  }
}

/** Submit -> callback received for a zero-latency chat: everything the gateway adds around the upstream. */
export async function chatEndToEnd(host: HostProcess, key: string, count: number): Promise<number[]> {
  const arrived = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const id = (JSON.parse(body) as { task_id: string }).task_id;
      arrived.set(id, performance.now());
      waiters.get(id)?.();
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const callback = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const overheads: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const id = await submitOne(host, key, JSON.stringify({ prompt: 'e2e', llm_params: { max_tokens: 8 }, callback_url: callback }));
    if (!arrived.has(id)) await new Promise<void>((r) => waiters.set(id, r));
    overheads.push((arrived.get(id) ?? NaN) - t0);
  }
  receiver.close();
  return overheads;
}

export { percentile, rssMb, startHost };
