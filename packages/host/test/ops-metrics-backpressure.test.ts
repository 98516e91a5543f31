import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerViolations } from './support/ledger-invariant.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/** Prometheus text: the sum of a metric's samples whose labels include `match`. */
function sum(text: string, name: string, match: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = new Map([...(m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1] ?? '', l[2] ?? '']));
    if (Object.entries(match).every(([k, v]) => labels.get(k) === v)) total += Number(m[4]);
  }
  return total;
}

function metricNames(text: string): Set<string> {
  return new Set(text.split('\n').filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2] ?? ''));
}

const metricsUrlOf = (s: SpawnedServer) => {
  const m = /"metricsUrl":"(http:\/\/[^"]+)"/.exec(s.output());
  if (!m?.[1]) throw new Error(`no metrics URL in the output:\n${s.output()}`);
  return m[1];
};

/**
 * Back-pressure and metrics across the roles: an API process (no worker) refuses the 101st waiting
 * submission with 503 + Retry-After and holds nothing; a worker process drains the queue; then the
 * API accepts again, and the counters of both processes add up: submitted = succeeded + failed + in flight.
 */
describe('metrics, health and back-pressure', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let api: SpawnedServer;
  let worker: SpawnedServer | null = null;
  let receiver: Server;
  let receiverUrl: string;
  let callbacksReceived = 0;
  let key: string;
  let env: NodeJS.ProcessEnv;

  const post = (path: string, body: unknown) =>
    fetch(`${api.url}/api/v1${path}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const scrape = async (s: SpawnedServer) => {
    const res = await fetch(metricsUrlOf(s));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };
  const count = async (sql: string) => (await pool.query<{ n: number }>(`select count(*)::int as n from ${sql}`)).rows[0]?.n;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        callbacksReceived++;
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`;
    env = {
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: tempDataDir(),
      SANDBOX_LATENCY_MS: '20',
      SANDBOX_LATENCY_JITTER_MS: '30',
      CALLBACK_ALLOW_PRIVATE: 'true',
      TASKS_RUNNING_PER_USER_CHAT: '1000',
      MAX_QUEUED_JOBS: '100',
      QUEUE_SAMPLE_INTERVAL_MS: '100',
      METRICS_PORT: '0',
    };
    api = await spawnServer({ ...env, RUN_WORKER: 'false' });
    key = (JSON.parse(await runCli(['users', 'create', '--email', 'ops@example.com', '--credits', '1000'], env)) as { api_key: string }).api_key;
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await new Promise<void>((r) => receiver?.close(() => r()));
    await pool?.end();
    await db?.drop();
  });

  it('serves /healthz and /readyz without a key, on the main and the metrics port', async () => {
    const metricsBase = metricsUrlOf(api).replace(/\/metrics$/, '');
    for (const path of ['/healthz', '/readyz']) {
      const res = await fetch(`${metricsBase}${path}`);
      expect(res.status, path).toBe(200);
    }
    expect(await (await fetch(`${metricsBase}/readyz`)).json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', queue: 'ok' } });
  });

  it('refuses the 101st waiting submission with 503 and Retry-After, holding nothing; accepts again once a worker drained the queue; the counters add up', async () => {
    // 100 submissions with the worker stopped: 90 that will succeed, 10 that will fail, half with callbacks.
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const prompt = i % 10 === 9 ? `no ${i} [sandbox:fail]` : `hello ${i}`;
      const res = await post('/run/sandbox.echo-chat', { prompt, ...(i % 2 === 0 ? { callback_url: receiverUrl } : {}) });
      expect(res.status).toBe(200);
      ids.push(((await res.json()) as { task_id: string }).task_id);
    }
    // The API process samples the queue every 100 ms: wait until its sample sees the 100 waiting jobs.
    await waitFor(async () => (sum(await scrape(api), 'gengate_queue_waiting_jobs', { queue: 'gengate-generate' }) === 100 ? true : null), {
      timeoutMs: 10_000,
      what: 'the queue sample to reach 100',
    });
    const balanceBefore = (await (await fetch(`${api.url}/api/v1/billing/balance`, { headers: { Authorization: `Bearer ${key}` } })).json()) as unknown;

    const refused = await post('/run/sandbox.echo-chat', { prompt: 'one too many' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ code: 503, error: { type: 'overloaded', param: null } });
    expect(await count('gengate.tasks')).toBe(100);
    expect(await count(`gengate.holds where state = 'held'`)).toBe(100);
    expect(await (await fetch(`${api.url}/api/v1/billing/balance`, { headers: { Authorization: `Bearer ${key}` } })).json()).toEqual(balanceBefore);

    const during = await scrape(api);
    expect(sum(during, 'gengate_submissions_refused_total', { reason: 'overloaded' })).toBe(1);
    expect(sum(during, 'gengate_queue_waiting_limit')).toBe(100);
    expect(sum(during, 'gengate_tasks_submitted_total')).toBe(100);
    expect(sum(during, 'gengate_tasks_in_flight')).toBe(100);
    expect(sum(during, 'gengate_holds_outstanding')).toBe(100);
    expect(sum(during, 'gengate_queue_oldest_ready_seconds', { queue: 'gengate-generate' })).toBeGreaterThan(0);
    expect(sum(during, 'gengate_http_request_duration_seconds_count', { route: '/api/v1/run/:model_id', status: '503' })).toBe(1);
    expect(sum(during, 'gengate_http_request_duration_seconds_count', { route: '/api/v1/run/:model_id', status: '200' })).toBe(100);

    // A worker process drains the queue.
    worker = await spawnServer(env);
    await waitFor(async () => ((await count(`gengate.tasks where status in ('success', 'fail')`)) === 100 ? true : null), {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: 'the worker to end the 100 tasks',
    });
    await waitFor(async () => (sum(await scrape(api), 'gengate_queue_waiting_jobs', { queue: 'gengate-generate' }) === 0 ? true : null), {
      timeoutMs: 10_000,
      what: 'the queue sample to see the queue drained',
    });
    const again = await post('/run/sandbox.echo-chat', { prompt: 'accepted again' });
    expect(again.status).toBe(200);
    ids.push(((await again.json()) as { task_id: string }).task_id);
    await waitFor(async () => ((await count(`gengate.tasks where status in ('success', 'fail')`)) === 101 ? true : null), { timeoutMs: 30_000, what: 'the last task to end' });
    await waitFor(async () => (callbacksReceived >= 50 && (await count(`gengate.callback_attempts where delivered`)) === 50 ? true : null), {
      timeoutMs: 30_000,
      what: '50 callbacks delivered',
    });

    // A task's end is counted just after its commit: wait for the counters to see all 101.
    const w = worker;
    const [apiText, workerText] = await waitFor(
      async () => {
        const texts = [await scrape(api), await scrape(w)] as const;
        const ended = texts.reduce((n, t) => n + sum(t, 'gengate_tasks_ended_total'), 0);
        const delivered = sum(texts[1], 'gengate_callbacks_total', { result: 'delivered' });
        return ended === 101 && delivered === 50 ? texts : null;
      },
      { timeoutMs: 10_000, what: 'the counters to see every end and callback' },
    );
    const both = (name: string, match: Record<string, string> = {}) => sum(apiText, name, match) + sum(workerText, name, match);
    const expected = [
      'gengate_http_request_duration_seconds',
      'gengate_tasks_submitted_total',
      'gengate_submissions_refused_total',
      'gengate_tasks_started_total',
      'gengate_tasks_ended_total',
      'gengate_task_generation_seconds',
      'gengate_queue_waiting_jobs',
      'gengate_queue_ready_jobs',
      'gengate_queue_oldest_ready_seconds',
      'gengate_queue_waiting_limit',
      'gengate_upstream_calls_total',
      'gengate_upstream_errors_total',
      'gengate_upstream_call_duration_seconds',
      'gengate_callbacks_total',
      'gengate_mails_sent_total',
      'gengate_holds_outstanding',
      'gengate_tasks_in_flight',
      'gengate_process_cpu_seconds_total',
    ];
    for (const name of expected) expect(metricNames(workerText), name).toContain(name);
    const submitted = both('gengate_tasks_submitted_total');
    const succeeded = both('gengate_tasks_ended_total', { outcome: 'success' });
    const failed = both('gengate_tasks_ended_total', { outcome: 'fail' });
    const inFlight = sum(workerText, 'gengate_tasks_in_flight'); // a database gauge: the same in every process
    expect({ submitted, succeeded, failed, inFlight }).toEqual({ submitted: 101, succeeded: 91, failed: 10, inFlight: 0 });
    expect(submitted).toBe(succeeded + failed + inFlight);
    expect(both('gengate_tasks_started_total')).toBe(101);
    expect(sum(workerText, 'gengate_task_generation_seconds_count', { model: 'sandbox.echo-chat' })).toBe(101);
    expect(sum(workerText, 'gengate_upstream_calls_total', { provider: 'sandbox', operation: 'generate' })).toBeGreaterThanOrEqual(101);
    expect(sum(workerText, 'gengate_upstream_errors_total', { provider: 'sandbox' })).toBeGreaterThanOrEqual(10);
    expect(sum(workerText, 'gengate_callbacks_total', { result: 'delivered' })).toBe(50);
    expect(sum(workerText, 'gengate_holds_outstanding')).toBe(0);
    expect(await ledgerViolations(db.url)).toEqual([]);
  });
});
