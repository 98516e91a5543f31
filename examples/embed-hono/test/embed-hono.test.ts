import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { createTestDatabase, describeHttpApiConformance, type TestDatabase } from '@gengate/testing/host';
import { serve, type ServerType } from '@hono/node-server';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractFetch } from '../../../packages/host/test/support/contract-fetch.js';
import { waitFor } from '../../../packages/host/test/support/spawn-server.js';
import { createApp, type App } from '../src/create-app.js';

/**
 * The example's Hono app on @hono/node-server, as server.ts starts it: gengate's black-box HTTP
 * conformance suite passes against /api/v1 through the Hono bridge, and a /v1 chat stream arrives chunk
 * by chunk (a client that stops reading after three chunks is charged less than the whole answer).
 */
let db: TestDatabase;
let app: App;
let server: ServerType;
let base = '';
let users = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await createApp({
    databaseUrl: db.url,
    publicUrl: () => base,
    filesDir: join(mkdtempSync(join(tmpdir(), 'embed-hono-')), 'files'),
    // Chat slow enough for a stream to be cut after a few chunks.
    adapters: [createSandboxAdapter({ latencyMs: { chat: 2_000, image: 50, video: 50 } })],
    shutdownGraceMs: 3_000,
  });
  await app.start();
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(info.port));
  });
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await app?.close();
  await db?.drop();
});

const createUser = async (credits: number) => ({ apiKey: (await app.gengate.gengate.admin.createUser({ email: `machine${++users}@example.com`, credits })).api_key });

describeHttpApiConformance('examples/embed-hono (Hono bridge, @hono/node-server)', {
  apiUrl: () => `${base}/api/v1`,
  fetch: contractFetch(),
  createUser,
  models: { chat: 'sandbox.echo-chat', image: 'sandbox.pixel-image', video: 'sandbox.motion-video', failing: 'sandbox.always-fail' },
  taskTimeoutMs: 20_000,
});

describe('the OpenAI-compatible /v1 through the Hono bridge', () => {
  it('streams a chat completion chunk by chunk; cut after three chunks, it is charged for what was produced', async () => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: (await createUser(100)).apiKey, maxRetries: 0 });
    const whole = await client.chat.completions.create({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'tell me everything' }], max_tokens: 24 });
    expect(whole.usage?.completion_tokens).toBe(24);

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
        const task = await app.gengate.gengate.tasks.findById(taskId);
        return task && (task.status === 'success' || task.status === 'fail') ? task : null;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the cut stream to settle' },
    );
    expect(ended.status).toBe('success');
    expect(ended.usage?.outputTokens).toBeGreaterThan(0);
    expect(ended.usage?.outputTokens).toBeLessThan(24);
  });
});
