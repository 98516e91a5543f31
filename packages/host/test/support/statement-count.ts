import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../../src/server/config.js';
import { startServer } from '../../src/server/start-server.js';

/**
 * Statements per chat task, counted as docs/benchmarks.md describes: every statement any pg client of the
 * process sends (pg.Client.prototype.query patched: gengate's pools and pg-boss's alike, BEGIN and COMMIT
 * included) while N zero-latency sandbox chats are submitted over HTTP and run by the worker in the same
 * process, from the first submission until the last task is `success`. The waiter's own statements
 * (one client, excluded) are not counted. Shared by `npm run bench:statements` and its test.
 */

export const GENERATE_FETCH = 'pg-boss: fetch of gengate-generate';
/** Fetches of callback jobs (with callback_url: one per delivery; without: the dispatcher's timer-driven polling). */
export const CALLBACK_FETCH = 'pg-boss: fetch of gengate-callback';
/** Fetches of every other queue: nobody sends them a job in this count, so they are timer-driven polling. */
export const IDLE_POLLING = 'pg-boss: fetch of other queues (idle workers polling)';

/** The generation and callback fetches' transaction (unflushedFetchDb): BEGIN, this, the fetch, COMMIT, in one write. */
export const UNFLUSHED_FETCH = 'pg-boss: fetch of gengate-generate or gengate-callback, its commit unflushed (SET LOCAL synchronous_commit)';

/** pg-boss's supervision, queue statistics, gengate's queue gauge and its usage fold: on timers, whatever the tasks do. */
export const MAINTENANCE = 'background: pg-boss maintenance, queue statistics, queue gauge, usage fold';

/** The route breakers' flush of batched outcomes and each process's refresh of their shared state: on timers (PgRouteHealth). */
export const ROUTE_HEALTH_SYNC = 'background: route breakers, batched outcomes and shared-state refresh';

/** What a statement is, by its text (first match wins). */
const KINDS: readonly (readonly [string, RegExp])[] = [
  [MAINTENANCE, /^BEGIN;\s*SET LOCAL lock_timeout|pgboss\.version|pg_class|pg_stat_user_tables|from "?pgboss"?\.queue\b|q\.queued_count|gengate_fold_usage_pending\(/i],
  [ROUTE_HEALTH_SYNC, /\.route_health(_seconds)?\b/i],
  [UNFLUSHED_FETCH, /^\s*set local synchronous_commit = off\s*$/i],
  ['BEGIN', /^\s*begin\b/i],
  ['COMMIT', /^\s*commit\b/i],
  ['ROLLBACK', /^\s*rollback\b/i],
  ['submission: gengate_submit_task()', /gengate_submit_task\(/],
  ['submissions of one user: gengate_submit_tasks()', /gengate_submit_tasks\(/],
  ['success: gengate_finish_success()', /gengate_finish_success\(/],
  ['failure: gengate_finish_fail()', /gengate_finish_fail\(/],
  ['worker wake-up: NOTIFY after COMMIT', /pg_notify|^\s*notify\b/i],
  ['callback: task read for delivery', /from \S+\.callback_attempts a where a\.task_id = t\.id/i],
  ['callback: delivery recorded', /insert into \S+\.callback_attempts/i],
  ['key lookup by hash', /from \S+\.api_keys where secret_hash/i],
  ['key last-used touch', /update \S+\.api_keys set last_used_at/i],
  ['rate-limit counter', /gengate_rate_limits/i],
  ['worker: task read by id', /^\s*select [\w\s,.]+ from \S+\.tasks where id = \$1\s*$/i],
  ['worker: mark generating', /update \S+\.tasks (?:t )?set status = 'generating'/i],
  ['poll: gengate_poll() (tasks by id and owner, keys checked)', /gengate_poll\(/],
  [GENERATE_FETCH, /j\.name = 'gengate-generate'\s[\s\S]*SKIP LOCKED/],
  [CALLBACK_FETCH, /j\.name = 'gengate-callback'\s[\s\S]*SKIP LOCKED/],
  [IDLE_POLLING, /SKIP LOCKED/i],
  ['pg-boss: complete', /SET completed_on = /i],
  [MAINTENANCE, /pgboss\.|job_common|queue_cache|^select 1$/i],
];

export interface StatementCount {
  readonly tasks: number;
  /** Whether each task had a callback_url (counted until every callback was delivered). */
  readonly callbacks: boolean;
  readonly total: number;
  readonly perTask: number;
  /** Fetches of gengate-generate that found no job (included in the kinds and the total). */
  readonly emptyGenerateFetches: number;
  /** Statements of each kind, per task, largest first. */
  readonly byKind: readonly { readonly kind: string; readonly count: number; readonly perTask: number }[];
  /** The texts that matched no kind (first 200 characters), with their counts. */
  readonly unclassified: readonly { readonly text: string; readonly count: number }[];
  readonly seconds: number;
  /** Every distinct text (first 300 characters), with its count. */
  readonly texts: readonly { readonly text: string; readonly count: number }[];
}

export function kindOf(text: string): string | null {
  for (const [kind, re] of KINDS) if (re.test(text)) return kind;
  return null;
}

function textOf(arg: unknown): string {
  if (typeof arg === 'string') return arg;
  if (typeof arg === 'object' && arg !== null && 'text' in arg && typeof arg.text === 'string') return arg.text;
  return String(arg);
}

/** Counts the statements of `tasks` chat tasks on a fresh server over `databaseUrl` (a database of its own). */
export async function countStatementsPerTask(databaseUrl: string, opts: { tasks?: number; connections?: number; callbackUrl?: string } = {}): Promise<StatementCount> {
  const tasks = opts.tasks ?? 50;
  const connections = opts.connections ?? 10;
  const seen = new Map<string, number>();
  let counting = false;
  const excluded = new WeakSet<object>();
  const original = pg.Client.prototype.query;
  let emptyGenerateFetches = 0;
  const onFetched = (r: unknown) => {
    if (typeof r === 'object' && r !== null && 'rows' in r && Array.isArray(r.rows) && r.rows.length === 0) emptyGenerateFetches++;
  };
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const counted = counting && !excluded.has(this);
    const text = counted ? textOf(args[0]).trim() : '';
    // A fetch that found no job: a worker woken or polling for nothing (the pool passes a callback).
    const fetch = counted && kindOf(text) === GENERATE_FETCH;
    const last = args[args.length - 1];
    if (fetch && typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => {
        if (!err) onFetched(res);
        return (last as (e: unknown, r: unknown) => unknown)(err, res);
      };
    }
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (counted) seen.set(text, (seen.get(text) ?? 0) + 1);
    if (fetch && result instanceof Promise) result.then(onFetched, () => undefined);
    return result;
  } as typeof pg.Client.prototype.query;
  const dataDir = mkdtempSync(join(tmpdir(), 'gg-statements-'));
  const waiter = new pg.Client({ connectionString: databaseUrl });
  excluded.add(waiter);
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    const env = {
      DATABASE_URL: databaseUrl,
      GENGATE_DATA_DIR: dataDir,
      PORT: '0',
      ROLE: 'all',
      SANDBOX_LATENCY_MS: '0',
      TASKS_RUNNING_PER_USER_CHAT: '10000',
      TASKS_QUEUED_PER_USER: '1000000',
      CALLBACK_ALLOW_PRIVATE: 'true',
      WORKER_CONCURRENCY: '8',
      DASHBOARD_ENABLED: 'false',
    };
    server = await startServer(loadConfig(env), { logger: pino({ level: 'silent' }) });
    await waiter.connect();
    const { api_key: key } = await server.gengate.admin.createUser({ email: `statements-${Date.now()}@example.com`, credits: 100_000_000 });
    const submit = async (): Promise<string> => {
      const res = await fetch(`${server?.url}/api/v1/run/sandbox.echo-chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'count', llm_params: { max_tokens: 8 }, ...(opts.callbackUrl ? { callback_url: opts.callbackUrl } : {}) }),
      });
      const body = (await res.json()) as { task_id?: string };
      if (!body.task_id) throw new Error(`submission refused: ${res.status} ${JSON.stringify(body)}`);
      return body.task_id;
    };
    const successes = async (ids: readonly string[]) =>
      (await waiter.query<{ n: number }>(`select count(*)::int as n from gengate.tasks where id = any($1::uuid[]) and status = 'success'`, [ids])).rows[0]?.n ?? 0;
    // Warm-up (not counted): the key's first lookup and last-used touch, pg-boss's first fetches, prepared plans.
    const warm = await submit();
    while ((await successes([warm])) < 1) await sleep(10);
    if (opts.callbackUrl) {
      while (((await waiter.query<{ n: number }>(`select count(*)::int as n from gengate.callback_attempts where task_id = $1 and delivered`, [warm])).rows[0]?.n ?? 0) < 1) await sleep(10);
    }
    await sleep(200);

    counting = true;
    const started = performance.now();
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < tasks) {
          next++;
          ids.push(await submit());
        }
      }),
    );
    while ((await successes(ids)) < tasks) await sleep(5);
    const delivered = async () =>
      (await waiter.query<{ n: number }>(`select count(distinct task_id)::int as n from gengate.callback_attempts where task_id = any($1::uuid[]) and delivered`, [ids])).rows[0]?.n ?? 0;
    if (opts.callbackUrl) while ((await delivered()) < tasks) await sleep(5);
    counting = false;
    const seconds = (performance.now() - started) / 1000;

    const kinds = new Map<string, number>();
    const unclassified = new Map<string, number>();
    let total = 0;
    for (const [text, n] of seen) {
      total += n;
      const kind = kindOf(text);
      if (kind) kinds.set(kind, (kinds.get(kind) ?? 0) + n);
      else {
        kinds.set('other', (kinds.get('other') ?? 0) + n);
        const short = text.replace(/\s+/g, ' ').slice(0, 200);
        unclassified.set(short, (unclassified.get(short) ?? 0) + n);
      }
    }
    return {
      tasks,
      callbacks: opts.callbackUrl !== undefined,
      total,
      perTask: total / tasks,
      emptyGenerateFetches,
      byKind: [...kinds].map(([kind, count]) => ({ kind, count, perTask: count / tasks })).sort((a, b) => b.count - a.count),
      unclassified: [...unclassified].map(([text, count]) => ({ text, count })).sort((a, b) => b.count - a.count),
      seconds,
      texts: [...seen].map(([text, count]) => ({ text: text.replace(/\s+/g, ' ').slice(0, 300), count })).sort((a, b) => b.count - a.count),
    };
  } finally {
    counting = false;
    await waiter.end().catch(() => undefined);
    await server?.close();
    pg.Client.prototype.query = original;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The count as lines of text: the total per task, then each kind. */
export function formatStatementCount(c: StatementCount): string {
  const lines = [
    `${c.tasks} chat tasks (zero-latency sandbox, worker in process${c.callbacks ? ', callbacks delivered' : ''}) in ${c.seconds.toFixed(2)} s: ${c.total} statements, ${c.perTask.toFixed(2)} per task`,
    ...c.byKind.map((k) => `  ${k.perTask.toFixed(2).padStart(6)}  ${k.kind} (${k.count})${k.kind === GENERATE_FETCH ? `, of which ${c.emptyGenerateFetches} found no job` : ''}`),
  ];
  if (process.env['STATEMENTS_VERBOSE']) lines.push('  texts:', ...c.texts.map((u) => `    ${u.count}x ${u.text}`));
  if (c.unclassified.length > 0) lines.push('  unclassified:', ...c.unclassified.slice(0, 20).map((u) => `    ${u.count}x ${u.text}`));
  return lines.join('\n');
}
