import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import request from './support/contract-request.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryApp } from './support/memory-app.js';
import { loadServerSecret } from '../src/postgres/server-secrets.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { createResultUrlResolver } from '../src/storage/result-urls.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

describe('cancel a waiting task (memory)', () => {
  it('ends it in fail "cancelled", releases the hold, refuses a second cancel and hides other users\' tasks', async () => {
    const m = createMemoryApp();
    const { key } = await m.user(10);
    const other = await m.user(10);
    const auth = { Authorization: `Bearer ${key}` };
    const { body: run } = await request(m.app).post('/api/v1/run/sandbox.pixel-image').set(auth).send({ prompt: 'x' });
    expect((await request(m.app).get('/api/v1/billing/balance').set(auth)).body.held_credits).toBe(2);
    expect((await request(m.app).post(`/api/v1/run/tasks/${run.task_id}/cancel`).set({ Authorization: `Bearer ${other.key}` })).status).toBe(404);
    const cancelled = await request(m.app).post(`/api/v1/run/tasks/${run.task_id}/cancel`).set(auth);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ task_id: run.task_id, status: 'fail', error_message: 'cancelled', result_urls: [] });
    expect((await request(m.app).get('/api/v1/billing/balance').set(auth)).body).toMatchObject({ credits: 10, held_credits: 0 });
    const again = await request(m.app).post(`/api/v1/run/tasks/${run.task_id}/cancel`).set(auth);
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('conflict');
    await m.drainJobs(); // the queued job finds the task ended and does nothing
    expect((await request(m.app).get(`/api/v1/run/tasks/${run.task_id}`).set(auth)).body.status).toBe('fail');
    expect(m.db.transactions.filter((t) => t.paymentMethod === 'usage')).toHaveLength(0);
  });
});

describe('cancel a generating task (PostgreSQL, real worker)', () => {
  let db: TestDatabase;
  let server: SpawnedServer;
  let key: string;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '1500' };
    key = (JSON.parse(await runCli(['users', 'create', '--email', 'cancel@example.com', '--credits', '100'], env)) as { api_key: string }).api_key;
    server = await spawnServer(env);
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('ends it in fail, charges nothing even after the upstream finishes, and keeps the ledger exact', async () => {
    const { task_id: taskId } = (await (await api('/run/sandbox.motion-video', { method: 'POST', body: JSON.stringify({ prompt: 'long' }) })).json()) as { task_id: string };
    await waitFor(async () => (((await (await api(`/run/tasks/${taskId}`)).json()) as { status: string }).status === 'generating' ? true : null), {
      timeoutMs: 10_000,
      what: 'generating',
    });
    const res = await api(`/run/tasks/${taskId}/cancel`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'fail', error_message: 'cancelled' });
    // Wait until the worker's job for this task has finished (the sandbox video would be ready by then).
    await waitFor(
      async () => {
        const pg = await import('pg');
        const c = new pg.default.Client({ connectionString: db.url });
        await c.connect();
        const { rows } = await c.query<{ state: string }>(`select state from pgboss.job where data->>'taskId' = $1`, [taskId]);
        await c.end();
        return rows[0]?.state === 'completed' ? true : null;
      },
      { timeoutMs: 15_000, intervalMs: 100, what: 'the generation job to finish' },
    );
    expect(((await (await api(`/run/tasks/${taskId}`)).json()) as { status: string }).status).toBe('fail');
    // No free result: the file the worker may have stored after the cancel is not served, even through a
    // validly signed URL (result URLs are signed by default; the secret is the one the server created).
    const pg = await import('pg');
    const c = new pg.default.Client({ connectionString: db.url });
    await c.connect();
    const secret = await loadServerSecret(c, DEFAULT_SCHEMA, 'result-urls');
    await c.end();
    const signedUrl = createResultUrlResolver(() => server.url, { secret, ttlSeconds: 600 }).urlFor(`${taskId}/output-0.gif`);
    const file = await fetch(signedUrl);
    expect(file.status).toBe(404);
    expect(await (await api('/billing/balance')).json()).toMatchObject({ credits: 100, held_credits: 0 });
    expect(await ledgerViolations(db.url)).toEqual([]);
  });
});
