import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateFetchHandler, createGengateHost, type FetchHandler, type GengateHost } from '../src/index.js';
import { waitFor } from './support/spawn-server.js';

/**
 * The fetch handler against the Express router of the same host: the same exchanges byte for byte, a /v1
 * stream read chunk by chunk and cut by the client, and the client IP of the context (with a trusted
 * proxy's X-Forwarded-For) checked against a key's whitelist.
 */
let db: TestDatabase;
let host: GengateHost;
let server: Server;
let handler: FetchHandler;
let base = '';
let key = '';
const ORIGIN = 'http://gengate.test';

beforeAll(async () => {
  db = await createTestDatabase();
  host = await createGengateHost({
    database: { url: db.url },
    // Slow enough for a stream to be cut after a few chunks.
    adapters: [createSandboxAdapter({ latencyMs: { chat: 2_000, image: 20, video: 20 } })],
    filesDir: join(mkdtempSync(join(tmpdir(), 'gengate-fetch-')), 'files'),
    publicUrl: () => base,
    openai: true,
    settings: { shutdownGraceMs: 2_000, trustProxy: ['10.9.9.9'] },
  });
  await host.migrate();
  await host.startWorkers();
  // The standalone server's setup of the same routers.
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use('/api/v1', host.router);
  if (host.openaiRouter) app.use('/v1', host.openaiRouter);
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handler = createGengateFetchHandler(host);
  key = (await host.gengate.admin.createUser({ email: 'fetch@example.com', credits: 100 })).api_key;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await host?.close();
  await db?.drop();
});

/** Headers that belong to one connection or one moment. */
const VARYING = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'x-request-id']);

async function exchange(res: Response) {
  const headers = [...res.headers].filter(([name]) => !VARYING.has(name));
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('latin1') };
}

describe('createGengateFetchHandler', () => {
  it('answers as the Express router does: status, headers and body bytes', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const cases: [string, RequestInit][] = [
      ['/api/v1/models?task=chat', { headers: auth }],
      ['/api/v1/models/sandbox.pixel-image/pricing', { headers: auth }],
      ['/api/v1/models', {}],
      ['/api/v1/models', { headers: { authorization: 'Bearer gg_not_a_key' } }],
      ['/api/v1/no/such/route', { headers: auth }],
      ['/api/v1/billing/balance', { headers: auth }],
      ['/api/v1/run/sandbox.echo-chat', { method: 'POST', headers: json, body: '{"prompt": ' }],
      ['/api/v1/run/sandbox.echo-chat', { method: 'POST', headers: json, body: JSON.stringify({ prompt: 'x', llm_params: { temperature: 3 } }) }],
      ['/api/v1/openapi.json', {}],
      ['/v1/models', { headers: auth }],
      ['/v1/chat/completions', { method: 'GET', headers: auth }],
      ['/v1/chat/completions', { method: 'POST', headers: json, body: JSON.stringify({ model: 'no-such-model', messages: [] }) }],
      ['/v1/videos', { method: 'POST', headers: auth, body: (() => { const f = new FormData(); f.set('model', 'no-such-model'); f.set('prompt', 'x'); return f; })() }],
    ];
    for (const [path, init] of cases) {
      const viaExpress = await exchange(await fetch(`${base}${path}`, init));
      const viaFetch = await exchange(await handler(new Request(`${ORIGIN}${path}`, init), { clientIp: '127.0.0.1' }));
      expect(viaFetch, `${init.method ?? 'GET'} ${path}`).toEqual(viaExpress);
    }
  });

  it('answers other paths 404 in the error body', async () => {
    const res = await handler(new Request(`${ORIGIN}/elsewhere`));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 404, error: { type: 'not_found' } });
  });

  it('streams /v1/chat/completions chunk by chunk; a client abort cuts the call, which is charged for what was produced', async () => {
    const controller = new AbortController();
    const res = await handler(
      new Request(`${ORIGIN}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'cut me short please' }], max_tokens: 24, stream: true }),
        signal: controller.signal,
      }),
      { clientIp: '127.0.0.1' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const taskId = res.headers.get('x-gengate-task-id') ?? '';
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let events = 0;
    while (events < 3) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      events += decoder.decode(value).split('\n\n').filter((e) => e.startsWith('data: {')).length;
    }
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    const ended = await waitFor(
      async () => {
        const task = await host.gengate.tasks.findById(taskId);
        return task && (task.status === 'success' || task.status === 'fail') ? task : null;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the cut stream to settle' },
    );
    expect(ended.status).toBe('success');
    expect(ended.usage?.outputTokens).toBeGreaterThan(0);
    expect(ended.usage?.outputTokens).toBeLessThan(24);
  });

  it("takes the client IP from the context, and from X-Forwarded-For only behind a trusted proxy", async () => {
    const created = await handler(
      new Request(`${ORIGIN}/api/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'whitelisted', ip_whitelist: ['198.51.100.7'] }),
      }),
      { clientIp: '127.0.0.1' },
    );
    expect(created.status).toBe(201);
    const listed = (await created.json()) as { key: string };
    const status = async (context: { clientIp?: string }, forwarded?: string) =>
      (await handler(new Request(`${ORIGIN}/api/v1/billing/balance`, { headers: { authorization: `Bearer ${listed.key}`, ...(forwarded ? { 'x-forwarded-for': forwarded } : {}) } }), context)).status;
    expect(await status({ clientIp: '198.51.100.7' })).toBe(200);
    expect(await status({ clientIp: '203.0.113.1' })).toBe(403);
    expect(await status({})).toBe(403);
    // A peer that is not a trusted proxy cannot claim another address.
    expect(await status({ clientIp: '203.0.113.1' }, '198.51.100.7')).toBe(403);
    expect(await status({ clientIp: '10.9.9.9' }, '198.51.100.7')).toBe(200);
  });
});
