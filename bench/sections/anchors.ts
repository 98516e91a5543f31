import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { perRequestCpu } from '../support/process-stats.js';
import { load, openLoad, type LoadResult } from '../support/load.js';

export interface CeilingResult {
  readonly threeInsertTps: number;
  /** The statements of one submission on one user's account row (the hot row), 10 clients. */
  readonly submissionShapedOneUserTps: number;
  readonly submissionShapedManyUsersTps: number;
}

async function loop(url: string, clients: number, seconds: number, body: (c: pg.Client, i: number) => Promise<void>): Promise<number> {
  const conns = await Promise.all(Array.from({ length: clients }, async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    return c;
  }));
  let done = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(conns.map(async (c, i) => {
    while (Date.now() < until) {
      await body(c, i);
      done++;
    }
  }));
  await Promise.all(conns.map((c) => c.end()));
  return done / seconds;
}

async function createCeilingTables(url: string): Promise<void> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query(`create table if not exists bench_a (id uuid primary key, v text, at timestamptz default now());
    create table if not exists bench_b (id uuid primary key, v text, at timestamptz default now());
    create table if not exists bench_c (id uuid primary key, v jsonb, at timestamptz default now());
    create table if not exists bench_acc (id int primary key, held bigint not null default 0, balance bigint not null);
    insert into bench_acc (id, balance) select g, 1e15 from generate_series(0, 63) g on conflict do nothing;`);
  await setup.end();
}

/**
 * The 3-insert ceiling alone (`BEGIN; 3 x INSERT; COMMIT`, `clients` raw pg clients): the anchor of the
 * pipeline's share, measured again beside it (bench/run.ts).
 */
export async function measureThreeInsertTps(url: string, clients = 10, seconds = 5): Promise<number> {
  await createCeilingTables(url);
  return loop(url, clients, seconds, async (c) => {
    await c.query('begin');
    await c.query('insert into bench_a (id, v) values ($1, $2)', [randomUUID(), 'x']);
    await c.query('insert into bench_b (id, v) values ($1, $2)', [randomUUID(), 'y']);
    await c.query('insert into bench_c (id, v) values ($1, $2)', [randomUUID(), '{"taskId":"z"}']);
    await c.query('commit');
  });
}

/**
 * The database's own ceiling, measured in the same run: a raw `pg` loop of `BEGIN; 3 x INSERT; COMMIT`
 * (the anchor), and of what one submission writes: one account row update (the hold) and three
 * inserts (hold, task, job), once with every client on one user's row and once on its own row.
 */
export async function measureDbCeiling(url: string, clients = 10, seconds = 5): Promise<CeilingResult> {
  const threeInsert = await measureThreeInsertTps(url, clients, seconds);
  const shaped = (account: (i: number) => number) => async (c: pg.Client, i: number) => {
    await c.query('begin');
    await c.query('insert into bench_b (id, v) values ($1, $2)', [randomUUID(), 'task']);
    await c.query('insert into bench_c (id, v) values ($1, $2)', [randomUUID(), '{"taskId":"z"}']);
    await c.query('with a as (update bench_acc set held = held + 1 where id = $1 and balance - held >= 1 returning id) insert into bench_a (id, v) select $2, id::text from a', [account(i), randomUUID()]);
    await c.query('commit');
  };
  const oneUser = await loop(url, clients, seconds, shaped(() => 0));
  const manyUsers = await loop(url, clients, seconds, shaped((i) => i));
  return { threeInsertTps: threeInsert, submissionShapedOneUserTps: oneUser, submissionShapedManyUsersTps: manyUsers };
}

/** A bare Express 5 app in its own process (default settings): GET /hello and a JSON POST /run. */
export interface ExpressAnchor {
  readonly url: string;
  readonly pid: number;
  stop(): void;
}

export async function startExpressAnchor(): Promise<ExpressAnchor> {
  const root = join(import.meta.dirname, '..', '..');
  const child = spawn(
    join(root, 'node_modules/.bin/node'),
    [
      '-e',
      `const express = require(require.resolve('express', { paths: [${JSON.stringify(join(root, 'packages/host'))}] }));
       const app = express(); app.use(express.json());
       app.get('/hello', (req, res) => res.json({ message: 'hello' }));
       app.post('/run', (req, res) => res.json({ code: 200, message: 'Task accepted.', task_id: crypto.randomUUID(), status: 'waiting', echo: req.body.prompt }));
       const s = app.listen(0, '127.0.0.1', () => console.log('port ' + s.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve) => child.stdout?.on('data', (b: Buffer) => {
    const m = /port (\d+)/.exec(b.toString());
    if (m) resolve(Number(m[1]));
  }));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? -1, stop: () => child.kill() };
}

/** One load against the anchor, with the anchor process's CPU time per request. */
export async function measureAnchor(anchor: ExpressAnchor, route: 'hello' | 'run', connections = 10, seconds = 5): Promise<LoadResult & { cpuMicrosPerRequest: number; v8ThreadsMicrosPerRequest: number }> {
  return perRequestCpu(anchor.pid, () =>
    load(
      route === 'hello'
        ? { url: `${anchor.url}/hello`, connections, durationSeconds: seconds, headerSets: [{}] }
        : { url: `${anchor.url}/run`, connections, durationSeconds: seconds, method: 'POST', body: JSON.stringify({ prompt: 'hello' }), headerSets: [{ 'content-type': 'application/json' }] },
    ),
  );
}

/**
 * The bare Express 5 hello route of `anchor` (a process of its own), flat out (10 connections) and at 1,000
 * arrivals a second (open loop, as the poll is loaded): the anchors of the poll's CPU and of its p99 on the
 * same machine and run.
 */
export async function measureExpressHello(anchor: ExpressAnchor, seconds = 5, warmUpSeconds = 0): Promise<{ flat: LoadResult & { cpuMicrosPerRequest: number }; at1k: LoadResult & { cpuMicrosPerRequest: number } }> {
  if (warmUpSeconds > 0) await measureAnchor(anchor, 'hello', 10, warmUpSeconds); // JIT, not counted
  const flat = await measureAnchor(anchor, 'hello', 10, seconds);
  const at1k = await perRequestCpu(anchor.pid, () => openLoad({ url: `${anchor.url}/hello`, rate: 1000, durationSeconds: seconds, headerSets: [{}] }));
  return { flat, at1k };
}

/** The bare Express 5 JSON POST route of `anchor`, loaded like the gateway: the HTTP stack's own cost. */
export async function measureExpressRoute(anchor: ExpressAnchor, connections = 10, seconds = 5, warmUpSeconds = 0): Promise<LoadResult & { cpuMicrosPerRequest: number }> {
  if (warmUpSeconds > 0) await measureAnchor(anchor, 'run', connections, warmUpSeconds); // JIT, not counted
  return measureAnchor(anchor, 'run', connections, seconds);
}
