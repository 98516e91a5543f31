import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, createMemoryStores, MemoryBlobStore } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualPaymentProcessor } from '../src/payments/manual-processor.js';
import { runCli, spawnServer, tempDataDir, waitFor } from './support/spawn-server.js';

describe('deadlines', () => {
  it('ends a task that runs past its modality deadline in fail with a clear message and no charge', async () => {
    const { db, scope, uow } = createMemoryStores();
    const gengate = createGengate({
      adapters: [new SandboxAdapter({ latencyMs: { chat: 5_000, image: 5_000, video: 5_000 } })],
      stores: scope,
      unitOfWork: uow,
      blobStore: new MemoryBlobStore(),
      resultUrls: { urlFor: (k) => k },
      paymentProcessor: new ManualPaymentProcessor(),
      execution: { deadlineMs: { chat: 100, image: 100, video: 100 } },
    });
    const { api_key } = await gengate.admin.createUser({ email: 'late@example.com', credits: 10 });
    const auth = await gengate.authenticate.execute(api_key, '127.0.0.1');
    const { task_id } = await gengate.submitRun.execute(auth, 'sandbox.echo-chat', { prompt: 'slow' });
    const started = Date.now();
    const outcome = await gengate.executeTask.runGeneration(task_id, new AbortController().signal);
    expect(Date.now() - started).toBeLessThan(2_000); // the adapter call was aborted, not waited for
    expect(outcome).toBe('fail');
    const task = await gengate.getTask.execute(auth, task_id);
    expect(task.error_message).toMatch(/^Generation did not finish within the deadline of .* no credits were charged.$/);
    expect(await gengate.billing.balance(auth)).toMatchObject({ credits: 10, held_credits: 0 });
    expect(db.transactions.filter((t) => t.paymentMethod === 'usage')).toHaveLength(0);
  });
});

describe('graceful shutdown (SIGTERM)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('stops taking requests, lets the running task finish, then exits 0', { timeout: 60_000 }, async () => {
    // The sandbox call lasts 5 s: the SIGTERM must land while it runs. The test watches the task's row
    // itself (not a poll through the HTTP API, whose answer on a loaded machine can outlast a short call).
    const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '5000', SHUTDOWN_GRACE_MS: '20000' };
    const key = (JSON.parse(await runCli(['users', 'create', '--email', 'term@example.com', '--credits', '10'], env)) as { api_key: string }).api_key;
    const server = await spawnServer(env);
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const statusOf = async (id: string) => (await c.query<{ status: string; attempts: number }>('select status, attempts from gengate.tasks where id = $1', [id])).rows[0];
    const { task_id: taskId } = (await (await api('/run/sandbox.echo-chat', { method: 'POST', body: JSON.stringify({ prompt: 'finish me' }) })).json()) as { task_id: string };
    const seen = new Set<string>();
    await waitFor(
      async () => {
        const status = (await statusOf(taskId))?.status ?? 'absent';
        seen.add(status);
        if (status === 'generating') return true;
        if (status !== 'queued') throw new Error(`the task went ${[...seen].join(' -> ')} before the test saw it generating`);
        return null;
      },
      { timeoutMs: 20_000, intervalMs: 10, what: 'the task to be generating (its row)' },
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; statuses seen: ${[...seen].join(', ')}; server output:\n${server.output().slice(-4_000)}`);
    });
    const exited = server.stop('SIGTERM');
    await waitFor(async () => (server.output().includes('shutting down') ? true : null), { timeoutMs: 5_000, what: 'the shutdown to begin' });
    await expect(fetch(`${server.url}/api/v1/models`, { headers: { Authorization: `Bearer ${key}` } })).rejects.toThrow();
    expect(await exited).toBe(0);
    const ended = await statusOf(taskId);
    await c.end();
    expect(ended).toEqual({ status: 'success', attempts: 1 });
  });
});
