import { createServer } from 'node:net';
import { FakeFal, FakeReplicate } from '@gengate/testing';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { videoProvidersFromEnv } from '../src/server/video-providers.js';
import { tempDataDir, waitFor } from './support/spawn-server.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * fal and Replicate calling the gateway back when a video is ready: the fakes sign their webhooks as the
 * providers do, and the standalone host (PUBLIC_URL set) ends the task at once without a status poll in
 * between; a tampered webhook is a 400 and changes nothing; the same webhook twice charges once.
 */
describe('upstream completion webhooks from fal and Replicate (fakes), through the standalone host', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let key: string;
  let fal: FakeFal;
  let replicate: FakeReplicate;

  beforeAll(async () => {
    db = await createTestDatabase();
    // Jobs end between two scheduled status checks (the first check comes after 2 s, the next after 4 s more).
    fal = await FakeFal.start({ durationMs: 3_000 });
    replicate = await FakeReplicate.start({ durationMs: 3_000 });
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: tempDataDir(),
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      FAL_KEY: 'fal-hook-key-0123456789',
      FAL_BASE_URL: fal.runUrl,
      FAL_QUEUE_URL: fal.queueUrl,
      FAL_JWKS_URL: fal.jwksUrl,
      REPLICATE_API_TOKEN: 'r8_hooktoken0123456789',
      REPLICATE_BASE_URL: replicate.baseUrl,
      REPLICATE_WEBHOOK_SECRET: replicate.webhookSecret,
    };
    const providers = videoProvidersFromEnv(env);
    server = await startServer(loadConfig(env), { logger: pino({ level: 'silent' }), adapters: providers.adapters });
    key = (await server.gengate.admin.createUser({ email: 'hooks-e2e@example.com', credits: 100_000 })).api_key;
  });

  afterAll(async () => {
    await server?.close();
    await Promise.all([fal?.close(), replicate?.close()]);
    await db?.drop();
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });

  const cases = [
    { name: 'fal', model: 'fal.veo3-fast', body: { prompt: 'a kite over the dunes', video_params: { duration: 4 } }, upstream: () => fal.upstream, jobs: () => fal.jobs, statusPath: /\/status$/ },
    {
      name: 'replicate',
      model: 'replicate.hailuo-02',
      body: { prompt: 'a kite over the dunes', video_params: { duration: 6 } },
      upstream: () => replicate.upstream,
      jobs: () => replicate.jobs,
      statusPath: /^\/v1\/predictions\/[^/]+$/,
    },
  ];

  it.each(cases)('$name: the signed webhook ends the task, with no status poll in between; replayed it changes nothing, tampered it is refused', async (c) => {
    const before = (await (await api('/billing/balance')).json()) as { credits: number };
    const res = await api(`/run/${c.model}`, { method: 'POST', body: JSON.stringify(c.body) });
    expect(res.status).toBe(200);
    const { task_id: taskId } = (await res.json()) as { task_id: string };
    await c.jobs().waitForDeliveries(c.jobs().deliveries.length + 1, 20_000);
    const delivery = c.jobs().deliveries.at(-1);
    expect(delivery?.url).toContain(`/api/v1/providers/${c.name}/webhook?task=${taskId}`);
    expect(delivery?.status).toBe(200);
    const polls = () => c.upstream().calls.filter((call) => call.method === 'GET' && c.statusPath.test(call.path)).length;
    const pollsAtDelivery = polls();
    const task = await waitFor(
      async () => {
        const t = (await (await api(`/run/tasks/${taskId}`)).json()) as { status: string; result_urls: string[] };
        return t.status === 'success' || t.status === 'fail' ? t : null;
      },
      { timeoutMs: 30_000, intervalMs: 20, what: `${c.model} to end after its webhook` },
    );
    expect(task.status).toBe('success');
    // Ended with no status poll after the delivery: the webhook ended it (that its check is due at once and
    // wakes a worker is proved in provider-webhooks.test.ts; the latency is not a test's business).
    expect(polls()).toBe(pollsAtDelivery);
    expect((await fetch(task.result_urls[0] ?? '')).headers.get('content-type')).toBe('video/mp4');

    // The same delivery again: acknowledged, changes nothing (one charge).
    const again = await fetch(delivery?.url ?? '', { method: 'POST', headers: delivery?.headers, body: delivery?.body });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ received: true, applied: false });
    // Tampered: refused, nothing changes.
    const forged = await fetch(delivery?.url ?? '', { method: 'POST', headers: delivery?.headers, body: (delivery?.body ?? '').replace('"', ' "') });
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as { error: { type: string } }).error.type).toBe('invalid_request');

    const tx = (await (await api('/billing/transactions?per_page=100')).json()) as { data: { payment_method: string; credits: number }[] };
    const after = (await (await api('/billing/balance')).json()) as { credits: number };
    const charged = before.credits - after.credits;
    expect(charged).toBeGreaterThan(0);
    expect(tx.data.filter((t) => t.payment_method === 'usage' && Math.abs(t.credits + charged) < 1e-9)).toHaveLength(1);
  });
});
