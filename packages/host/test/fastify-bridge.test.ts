import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { createTestDatabase, describeHttpApiConformance, type TestDatabase } from '@gengate/testing/host';
import Fastify, { type FastifyInstance } from 'fastify';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateHost, gengateFastify, type GengateHost } from '../src/index.js';
import { contractFetch } from './support/contract-fetch.js';
import { waitFor } from './support/spawn-server.js';

/**
 * The Fastify bridge on a real Fastify server: gengate's routes get the Node request and response as
 * they are (bodies unread by Fastify, the socket's peer address), next to the app's own JSON route.
 */
let db: TestDatabase;
let host: GengateHost;
let app: FastifyInstance;
let base = '';
let users = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  host = await createGengateHost({
    database: { url: db.url },
    adapters: [createSandboxAdapter({ latencyMs: { chat: 2_000, image: 50, video: 50 } })],
    filesDir: join(mkdtempSync(join(tmpdir(), 'gengate-fastify-')), 'files'),
    publicUrl: () => base,
    openai: true,
    settings: { shutdownGraceMs: 2_000 },
  });
  await host.migrate();
  await host.startWorkers();
  // close() ends every connection: without it, after a cut /v1 stream on a reused keep-alive connection,
  // close() waits out Fastify's 72 s keepAliveTimeout. A plain Fastify route with reply.hijack() and no gengate
  // does the same when its client aborts a stream (checked while writing this bridge), so it is not the bridge's.
  app = Fastify({ forceCloseConnections: true });
  // The app's own route, with Fastify's JSON parser: the bridge's plugin keeps its parsers to itself.
  app.post('/echo', async (request) => ({ got: request.body }));
  await app.register(gengateFastify(host));
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app?.close();
  await host?.close();
  await db?.drop();
});

const createUser = async (credits: number) => ({ apiKey: (await host.gengate.admin.createUser({ email: `fastify${++users}@example.com`, credits })).api_key });

describeHttpApiConformance('the Fastify bridge', {
  apiUrl: () => `${base}/api/v1`,
  fetch: contractFetch(),
  createUser,
  models: { chat: 'sandbox.echo-chat', image: 'sandbox.pixel-image', video: 'sandbox.motion-video', failing: 'sandbox.always-fail' },
  taskTimeoutMs: 20_000,
});

describe('gengateFastify', () => {
  it("leaves the app's own routes and body parsing alone", async () => {
    const res = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await res.json()).toEqual({ got: { a: 1 } });
  });

  it("checks a key's IP whitelist against the socket's peer address", async () => {
    const { apiKey } = await createUser(1);
    const make = async (ip: string) => {
      const res = await fetch(`${base}/api/v1/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: ip, ip_whitelist: [ip] }) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { key: string }).key;
    };
    const balance = async (key: string) => (await fetch(`${base}/api/v1/billing/balance`, { headers: { authorization: `Bearer ${key}` } })).status;
    expect(await balance(await make('127.0.0.1'))).toBe(200);
    expect(await balance(await make('198.51.100.7'))).toBe(403);
  });

  it('streams /v1/chat/completions; a client that stops after three chunks is charged for what was produced', async () => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: (await createUser(100)).apiKey, maxRetries: 0 });
    const controller = new AbortController();
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'tell me everything' }], max_tokens: 24, stream: true }, { signal: controller.signal })
      .withResponse();
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
        const task = await host.gengate.tasks.findById(taskId);
        return task && (task.status === 'success' || task.status === 'fail') ? task : null;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the cut stream to settle' },
    );
    expect(ended.usage?.outputTokens).toBeGreaterThan(0);
    expect(ended.usage?.outputTokens).toBeLessThan(24);
  });
});
