import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { createGengateHost, type GengateHost } from '@gengate/host';
import { createTestDatabase, describeHttpApiConformance, type TestDatabase } from '@gengate/testing/host';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractFetch } from '../../../packages/host/test/support/contract-fetch.js';
import { waitFor } from '../../../packages/host/test/support/spawn-server.js';
import { buildNextApp, startNextApp, type NextServer } from './next-server.js';

/**
 * The example's Next.js app, built (`next build`) and served in production mode (`next start`): gengate's
 * black-box HTTP conformance suite passes against /api/v1 through the route handlers of the Next.js
 * bridge, and a /v1 chat stream arrives chunk by chunk (cut by the client after three chunks, it is
 * charged less than the whole answer). The test's own host, on the same database, runs gengate's workers
 * (the app serves HTTP only) and makes the users.
 */
let db: TestDatabase;
let admin: GengateHost;
let next: NextServer;
let users = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  const filesDir = join(mkdtempSync(join(tmpdir(), 'embed-nextjs-')), 'files');
  // The gengate workers beside the app (its route handlers only serve HTTP), and the users' maker.
  admin = await createGengateHost({ database: { url: db.url }, adapters: [createSandboxAdapter({ latencyMs: { chat: 50, image: 50, video: 50 } })], filesDir, settings: { shutdownGraceMs: 3_000 } });
  await admin.migrate();
  await admin.startWorkers();
  await buildNextApp();
  next = await startNextApp({
    DATABASE_URL: db.url,
    FILES_DIR: filesDir,
    SANDBOX_LATENCY_MS: '50',
    // Chat slow enough for a stream to be cut after a few chunks.
    SANDBOX_CHAT_LATENCY_MS: '2000',
  });
}, 600_000);

afterAll(async () => {
  await next?.stop();
  await admin?.close();
  await db?.drop();
});

const createUser = async (credits: number) => ({ apiKey: (await admin.gengate.admin.createUser({ email: `machine${++users}@example.com`, credits })).api_key });

describeHttpApiConformance('examples/embed-nextjs (Next.js route handlers, next start)', {
  apiUrl: () => `${next.url}/api/v1`,
  // Next.js 16 drops Content-Length from every route handler response and sends the body chunked
  // (FORBIDDEN_HEADERS in next/dist/server/send-response.js): the one header gengate cannot keep there.
  fetch: contractFetch('/api/v1', [/: response header Content-Length is missing$/]),
  createUser,
  models: { chat: 'sandbox.echo-chat', image: 'sandbox.pixel-image', video: 'sandbox.motion-video', failing: 'sandbox.always-fail' },
  taskTimeoutMs: 30_000,
});

describe('the OpenAI-compatible /v1 through the Next.js route handlers', () => {
  it('streams a chat completion chunk by chunk; cut after three chunks, it is charged for what was produced', async () => {
    const client = new OpenAI({ baseURL: `${next.url}/v1`, apiKey: (await createUser(100)).apiKey, maxRetries: 0 });
    const controller = new AbortController();
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'tell me everything' }], max_tokens: 24, stream: true }, { signal: controller.signal })
      .withResponse();
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const taskId = response.headers.get('x-gengate-task-id') ?? '';
    let seen = 0;
    try {
      for await (const _chunk of stream) if (++seen === 3) controller.abort();
    } catch {
      // the client's own abort
    }
    expect(seen).toBe(3);
    const ended = await waitFor(
      async () => {
        const task = await admin.gengate.tasks.findById(taskId);
        return task && (task.status === 'success' || task.status === 'fail') ? task : null;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the cut stream to settle' },
    );
    expect(ended.status).toBe('success');
    expect(ended.usage?.outputTokens).toBeGreaterThan(0);
    expect(ended.usage?.outputTokens).toBeLessThan(24);
  });
});
