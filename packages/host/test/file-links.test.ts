import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { TOKENS, type Clock, type CreateGengateOptions } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import express from 'express';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateHost, type GengateHost } from '../src/index.js';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { tempDataDir, waitFor } from './support/spawn-server.js';

/**
 * Result files are private by default: every result URL the standalone host or the facade hands out is
 * signed and expires (RESULT_URL_TTL_SECONDS, default one hour); a URL without its signature, with a
 * forged one, or past its expiry is refused, and polling the task again gives a fresh one. Embedders
 * may instead check the session (fileAccess `session`): only the task's owner gets its files.
 */

/** A clock the test moves: the host's container reads it for signing and for checking expiry. */
function movableClock(): { clock: Clock; advance: (ms: number) => void; configure: NonNullable<CreateGengateOptions['configure']> } {
  let now = Date.now();
  const clock: Clock = { now: () => new Date(now) };
  return {
    clock,
    advance: (ms) => {
      now += ms;
    },
    configure: (c) => {
      c.rebind(TOKENS.Clock).toConstantValue(clock);
    },
  };
}

async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function runToEnd(apiUrl: string, headers: Record<string, string>, prompt: string): Promise<{ taskId: string; url: string }> {
  const submitted = await fetch(`${apiUrl}/run/sandbox.echo-chat`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ prompt }) });
  expect(submitted.status).toBe(200);
  const { task_id: taskId } = (await submitted.json()) as { task_id: string };
  const task = await waitFor(
    async () => {
      const t = (await (await fetch(`${apiUrl}/run/tasks/${taskId}`, { headers })).json()) as { status: string; result_urls: string[] };
      return t.status === 'success' || t.status === 'fail' ? t : null;
    },
    { timeoutMs: 20_000, intervalMs: 50, what: 'the task to end' },
  );
  expect(task.status).toBe('success');
  return { taskId, url: task.result_urls[0] ?? '' };
}

async function errorOf(res: Response): Promise<{ status: number; type: string }> {
  return { status: res.status, type: ((await res.json()) as { error: { type: string } }).error.type };
}

/** The refusals every signed mode must show, with the clock moved past the URL's expiry at the end. */
async function expectSignedAndExpiring(apiUrl: string, headers: Record<string, string>, time: Pick<ReturnType<typeof movableClock>, 'clock' | 'advance'>): Promise<void> {
  const nowSeconds = () => Math.floor(time.clock.now().getTime() / 1000);
  const { taskId, url } = await runToEnd(apiUrl, headers, 'private by default');
  const signed = new URL(url);
  const expires = Number(signed.searchParams.get('expires'));
  // One hour (RESULT_URL_TTL_SECONDS' default), rounded up to a minute (one URL per file and minute).
  expect(expires % 60).toBe(0);
  expect(expires - nowSeconds()).toBeGreaterThanOrEqual(3_600);
  expect(expires - nowSeconds()).toBeLessThan(3_660);
  expect(signed.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect((await fetch(url)).status).toBe(200);

  const bare = `${signed.origin}${signed.pathname}`;
  expect(await errorOf(await fetch(bare))).toEqual({ status: 403, type: 'result_url_invalid' });
  expect(await errorOf(await fetch(url.replace(/signature=[^&]+/, 'signature=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')))).toEqual({
    status: 403,
    type: 'result_url_invalid',
  });
  const later = new URL(url);
  later.searchParams.set('expires', String(expires + 86_400));
  expect(await errorOf(await fetch(later))).toEqual({ status: 403, type: 'result_url_invalid' });

  time.advance((expires - nowSeconds() + 1) * 1000);
  expect(await errorOf(await fetch(url))).toEqual({ status: 410, type: 'result_url_expired' });
  // The poll answer signs afresh, from the (moved) clock.
  const fresh = ((await (await fetch(`${apiUrl}/run/tasks/${taskId}`, { headers })).json()) as { result_urls: string[] }).result_urls[0] ?? '';
  expect(Number(new URL(fresh).searchParams.get('expires'))).toBeGreaterThan(expires);
  expect((await fetch(fresh)).status).toBe(200);
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe('the standalone host: signed, expiring result URLs by default', () => {
  let server: RunningServer;
  const time = movableClock();

  beforeAll(async () => {
    const config = loadConfig({ DATABASE_URL: db.url, DATABASE_SCHEMA: 'links_standalone', GENGATE_DATA_DIR: tempDataDir(), PORT: '0', SANDBOX_LATENCY_MS: '5' });
    expect(config.fileAccess).toBe('signed');
    expect(config.resultUrlTtlSeconds).toBe(3_600);
    server = await startServer(config, { logger: pino({ level: 'silent' }), configure: time.configure });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses a file without a valid signature (403) and after its expiry (410); a new poll signs afresh', async () => {
    const { api_key: key } = await server.gengate.admin.createUser({ email: 'standalone@example.com', credits: 100 });
    await expectSignedAndExpiring(`${server.url}/api/v1`, { Authorization: `Bearer ${key}` }, time);
  });
});

describe('createGengateHost: signed, expiring result URLs by default', () => {
  let host: GengateHost;
  let server: Server;
  let base = '';
  const time = movableClock();

  beforeAll(async () => {
    host = await createGengateHost({
      database: { url: db.url, poolMax: 4 },
      schema: 'links_facade',
      adapters: [createSandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 5 } })],
      filesDir: join(mkdtempSync(join(tmpdir(), 'gengate-links-')), 'files'),
      publicUrl: () => base,
      mountPath: '/ai',
      settings: { shutdownGraceMs: 2_000 },
      configure: time.configure,
    });
    await host.migrate();
    await host.startWorkers();
    ({ server, base } = await listen(express().use('/ai', host.router)));
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await host?.close();
  });

  it('refuses a file without a valid signature (403) and after its expiry (410); a new poll signs afresh', async () => {
    expect(host.settings.fileAccess).toBe('signed');
    const { api_key: key } = await host.gengate.admin.createUser({ email: 'facade@example.com', credits: 100 });
    await expectSignedAndExpiring(host.apiUrl(), { Authorization: `Bearer ${key}` }, time);
  });
});

describe('createGengateHost with fileAccess session: only the owner gets a file', () => {
  let host: GengateHost;
  let server: Server;
  let base = '';
  const users = new Map<string, string>();

  beforeAll(async () => {
    host = await createGengateHost({
      database: { url: db.url, poolMax: 4 },
      schema: 'links_session',
      adapters: [createSandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 5 } })],
      filesDir: join(mkdtempSync(join(tmpdir(), 'gengate-links-')), 'files'),
      publicUrl: () => base,
      mountPath: '/ai',
      settings: { shutdownGraceMs: 2_000, fileAccess: 'session' },
      // The app's session, reduced to a header: API calls need it plus a CSRF header, file loads the session alone.
      authenticate: async (req) => {
        const id = users.get(String(req.headers['x-session'] ?? ''));
        return id && req.headers['x-csrf'] === 'ok' ? { userId: id, apiKeyId: null } : null;
      },
      authenticateFiles: async (req) => {
        const id = users.get(String(req.headers['x-session'] ?? ''));
        return id ? { userId: id, apiKeyId: null } : null;
      },
      signInHint: 'sign in at /login',
    });
    await host.migrate();
    await host.startWorkers();
    users.set('alice', (await host.ensureUser({ email: 'alice@example.com', credits: 10 })).userId);
    users.set('bob', (await host.ensureUser({ email: 'bob@example.com', credits: 10 })).userId);
    ({ server, base } = await listen(express().use('/ai', host.router)));
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await host?.close();
  });

  it("serves alice's file to alice only: bob gets 404, no session 401 naming the app's sign-in", async () => {
    const { url } = await runToEnd(host.apiUrl(), { 'x-session': 'alice', 'x-csrf': 'ok' }, 'for alice only');
    expect(new URL(url).search).toBe('');
    const mine = await fetch(url, { headers: { 'x-session': 'alice' } });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('cache-control')).toBe('private, no-cache');
    expect(await mine.text()).toMatch(/for alice only/);
    expect(await errorOf(await fetch(url, { headers: { 'x-session': 'bob' } }))).toEqual({ status: 404, type: 'not_found' });
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { message: string }).message).toBe(
      'Not signed in: sign in at /login, or send an API key in the header Authorization: Bearer <API_KEY>.',
    );
  });
});
