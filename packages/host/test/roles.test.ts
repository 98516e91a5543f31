import { once } from 'node:events';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOSS_SCHEMA } from '../src/postgres/boss-queues.js';
import { cliProcess, runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

const METRICS_TOKEN = 'roles-test-metrics-token-0123';

/** ROLE / --role: an api process and a worker process on one database do together what one `all` process does. */
describe('roles: gengate serve --role api | worker', () => {
  let db: TestDatabase;
  let api: SpawnedServer;
  let worker: ReturnType<typeof cliProcess>;
  let workerUrl = '';
  let workerOut = '';
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await createTestDatabase();
    // One data directory: the local blob store is shared by both processes (one machine).
    env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '50' };
    api = await spawnServer({ ...env, ROLE: 'api' });
    worker = cliProcess(['serve', '--role', 'worker'], { ...env, PORT: '0', METRICS_TOKEN }); // the api process has no token
    worker.stdout?.on('data', (d: Buffer) => (workerOut += d.toString()));
    worker.stderr?.on('data', (d: Buffer) => (workerOut += d.toString()));
    workerUrl = await waitFor(async () => /health at (\S+)\/healthz/.exec(workerOut)?.[1], { timeoutMs: 60_000, what: 'the worker to start' });
  });

  afterAll(async () => {
    await api?.stop();
    if (worker && worker.exitCode === null) {
      const exited = once(worker, 'exit');
      worker.kill('SIGTERM');
      await exited;
    }
    await db?.drop();
  });

  it('the api process takes a task that the worker process runs to success; its result downloads through the api', async () => {
    expect(api.output()).toMatch(/"role":"api"/);
    const key = (JSON.parse(await runCli(['users', 'create', '--email', 'roles@example.com', '--credits', '10'], env)) as { api_key: string }).api_key;
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${api.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } });
    const submitted = (await (await call('/run/sandbox.echo-chat', { method: 'POST', body: JSON.stringify({ prompt: 'split roles' }) })).json()) as { task_id: string };
    const task = await waitFor(
      async () => {
        const t = (await (await call(`/run/tasks/${submitted.task_id}`)).json()) as { status: string; result_urls: string[] };
        return t.status === 'success' || t.status === 'fail' ? t : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the task to end' },
    );
    expect(task.status).toBe('success');
    const file = await fetch(task.result_urls[0] ?? '');
    expect(file.status).toBe(200);
    expect(await file.text()).toMatch(/^Sandbox reply to: split roles/);
  });

  it('the worker process serves health and metrics and nothing else', async () => {
    const health = await fetch(`${workerUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${workerUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${workerUrl}/metrics`)).status).toBe(401); // METRICS_TOKEN set: the bearer token is asked for
    const metrics = await fetch(`${workerUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^# HELP /m);
    for (const path of ['/api/v1/models', '/api/v1/openapi.json', '/docs', '/dashboard/', '/']) {
      const res = await fetch(`${workerUrl}${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe('not_found');
    }
  });

  it('the api process, with neither METRICS_PORT nor METRICS_TOKEN, serves no /metrics on its public port (the default)', async () => {
    const res = await fetch(`${api.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('gengate_holds_outstanding');
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
  });

  it('the api process runs no worker: with the worker stopped, a task stays waiting', async () => {
    const exited = once(worker, 'exit');
    worker.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
    const key = (JSON.parse(await runCli(['users', 'create', '--email', 'roles2@example.com', '--credits', '10'], env)) as { api_key: string }).api_key;
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const submitted = (await (await fetch(`${api.url}/api/v1/run/sandbox.echo-chat`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'nobody runs me' }) })).json()) as {
      task_id: string;
    };
    // The job sits in the queue with no worker to take it (the api process never claims jobs).
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const jobs = await waitFor(
        async () => {
          const r = await client.query<{ state: string }>(`select state from ${BOSS_SCHEMA}.job where name = 'gengate-generate' and data->>'taskId' = $1`, [submitted.task_id]);
          return r.rows.length > 0 ? r.rows : null;
        },
        { timeoutMs: 30_000, what: 'the generation job' },
      );
      expect(jobs.map((j) => j.state)).toEqual(['created']);
    } finally {
      await client.end();
    }
    const task = (await (await fetch(`${api.url}/api/v1/run/tasks/${submitted.task_id}`, { headers })).json()) as { status: string };
    expect(task.status).toBe('waiting');
  });
});
