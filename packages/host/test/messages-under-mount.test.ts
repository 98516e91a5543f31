import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, createMemoryStores, MemoryBlobStore } from '@gengate/core';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';
import { createResultUrlResolver } from '../src/storage/result-urls.js';

/**
 * An app that mounts gengate under /ai and signs its users in with its own sessions: every message names
 * the path the caller used (/ai, not /api/v1) and the authentication the app configured.
 */
describe('messages under a custom mount (/ai) with an app sign-in', () => {
  let server: Server;
  let base = '';
  let userId = '';

  beforeAll(async () => {
    const { scope, uow } = createMemoryStores();
    const gengate = createGengate({
      adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 1 } })],
      stores: scope,
      unitOfWork: uow,
      blobStore: new MemoryBlobStore(),
      resultUrls: createResultUrlResolver(() => base, null, '/ai'),
      paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
    });
    userId = (await gengate.admin.createUser({ email: 'poor@example.com', credits: 0 })).user_id;
    const app = express().use(
      '/ai',
      createGengateRouter({
        gengate,
        blobStore: new MemoryBlobStore(),
        logger: pino({ level: 'silent' }),
        authenticate: async (req) => (req.headers['x-session'] === 'poor' ? { userId, apiKeyId: null } : null),
        signInHint: 'sign in at /login',
      }),
    );
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; message: string; type: string }> => {
    const res = await fetch(`${base}${path}`, { ...init, headers: { 'x-session': 'poor', 'content-type': 'application/json', ...init.headers } });
    const body = (await res.json()) as { message: string; error: { type: string } };
    return { status: res.status, message: body.message, type: body.error.type };
  };

  it('an unknown model names GET /ai/models', async () => {
    const r = await call('/ai/run/nobody.nothing', { method: 'POST', body: JSON.stringify({ prompt: 'x' }) });
    expect(r).toEqual({ status: 404, type: 'model_not_found', message: "No model with id 'nobody.nothing'. List models with GET /ai/models." });
  });

  it('the top-up hint of a 402 names POST /ai/billing/topup', async () => {
    const r = await call('/ai/run/sandbox.echo-chat', { method: 'POST', body: JSON.stringify({ prompt: 'no credits' }) });
    expect(r).toEqual({
      status: 402,
      type: 'insufficient_credits',
      message: 'The available balance cannot cover the price of this run; top up with POST /ai/billing/topup.',
    });
  });

  it('an unknown endpoint names the path used', async () => {
    expect((await call('/ai/nowhere')).message).toBe('No endpoint GET /ai/nowhere.');
  });

  it('a visitor without a session or key is told to sign in to the app (or send a key), not only "Missing API key"', async () => {
    const res = await fetch(`${base}/ai/models`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="gengate"');
    const body = (await res.json()) as { message: string; error: { type: string } };
    expect(body.error.type).toBe('authentication_failed');
    expect(body.message).toBe('Not signed in: sign in at /login, or send an API key in the header Authorization: Bearer <API_KEY>.');
  });
});
