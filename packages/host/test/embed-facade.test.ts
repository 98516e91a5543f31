import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import express from 'express';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateHost, type GengateHost } from '../src/index.js';
import { waitFor } from './support/spawn-server.js';

/**
 * createGengateHost in an app of its own: the embedder's pool, a router mounted under /gen/api, its
 * own authentication seam, signed result URLs: result URLs follow the mount path and download.
 */
describe('createGengateHost mounted under /gen/api', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let host: GengateHost;
  let server: Server;
  let base = '';
  let userId = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 5 });
    host = await createGengateHost({
      database: { pool },
      adapters: [createSandboxAdapter({ latencyMs: { chat: 20, image: 20, video: 20 } })],
      filesDir: join(mkdtempSync(join(tmpdir(), 'gengate-embed-')), 'files'),
      publicUrl: () => base,
      mountPath: '/gen/api',
      settings: { resultUrlTtlSeconds: 600, shutdownGraceMs: 2_000 },
      // The app's own sign-in, reduced to a header for this test; anything else falls through to API keys.
      authenticate: async (req) => (req.headers['x-test-user'] === 'alice' ? { userId, apiKeyId: null } : null),
    });
    expect((await host.migrate()).applied.length).toBeGreaterThan(0);
    await host.startWorkers();
    userId = (await host.ensureUser({ email: 'alice@example.com', credits: 5 })).userId;
    const app = express();
    app.use('/gen/api', host.router);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await host?.close();
    await pool?.end();
    await db?.drop();
  });

  it('ensureUser creates the gengate user once, with its starting credits and no API key', async () => {
    expect(await host.ensureUser({ email: 'alice@example.com', credits: 5 })).toEqual({ userId, created: false });
    const keys = (await (await fetch(`${base}/gen/api/api-keys`, { headers: { 'x-test-user': 'alice' } })).json()) as { data: unknown[] };
    expect(keys.data).toEqual([]);
    const balance = await fetch(`${base}/gen/api/billing/balance`, { headers: { 'x-test-user': 'alice' } });
    expect(((await balance.json()) as { credits: number }).credits).toBe(5);
  });

  it('ensureUser called at once for a new address makes one user, which every caller gets', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => host.ensureUser({ email: 'carol@example.com', credits: 2 })));
    expect(new Set(results.map((r) => r.userId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const balance = await host.gengate.billing.balance({ userId: results[0]?.userId ?? '', apiKeyId: null });
    expect(balance.credits).toBe(2);
  });

  it('runs a task for the seam-authenticated user; its signed result URL is under /gen/api and downloads', async () => {
    const headers = { 'x-test-user': 'alice', 'content-type': 'application/json' };
    const submitted = await fetch(`${base}/gen/api/run/sandbox.echo-chat`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'mounted elsewhere' }) });
    expect(submitted.status).toBe(200);
    const { task_id } = (await submitted.json()) as { task_id: string };
    const task = await waitFor(
      async () => {
        const t = (await (await fetch(`${base}/gen/api/run/tasks/${task_id}`, { headers })).json()) as { status: string; result_urls: string[] };
        return t.status === 'success' || t.status === 'fail' ? t : null;
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the task to end' },
    );
    expect(task.status).toBe('success');
    const url = task.result_urls[0] ?? '';
    expect(url.startsWith(`${base}/gen/api/files/`)).toBe(true);
    expect(url).toMatch(/[?&]signature=/);
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(await file.text()).toMatch(/^Sandbox reply to: mounted elsewhere/);
    // The signature is checked: a tampered one is refused.
    expect((await fetch(url.replace(/signature=[^&]+/, 'signature=forged'))).status).toBe(403);
  });

  it('answers 503 with the error body while its database is unreachable, and closes cleanly', async () => {
    const down = await createGengateHost({ database: { url: 'postgres://nobody@127.0.0.1:1/none' }, adapters: [createSandboxAdapter()] });
    const app = express().use('/x', down.router);
    const s = await new Promise<Server>((resolve) => {
      const srv = app.listen(0, '127.0.0.1', () => resolve(srv));
    });
    try {
      const res = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/x/models`);
      expect(res.status).toBe(503);
      // The start-up gate answers before the request context: as when it was a router of its own in front.
      expect(res.headers.get('x-request-id')).toBeNull();
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe('service_unavailable');
    } finally {
      await new Promise((resolve) => s.close(resolve));
      await down.close();
    }
  });

  it('without the seam or a key the router answers 401 with the error body', async () => {
    const res = await fetch(`${base}/gen/api/models`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('authentication_failed');
  });
});

describe('createGengateHost with a database URL (its own pool), default mount /api/v1', () => {
  it('migrates, runs a task for an API key, and close() ends the pool it opened', async () => {
    const db = await createTestDatabase();
    let base = '';
    const host = await createGengateHost({
      database: { url: db.url, poolMax: 4 },
      adapters: [createSandboxAdapter({ latencyMs: { chat: 20, image: 20, video: 20 } })],
      filesDir: join(mkdtempSync(join(tmpdir(), 'gengate-embed-')), 'files'),
      publicUrl: () => base,
    });
    const server = await new Promise<Server>((resolve) => {
      const s = express().use(host.mountPath, host.router).listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await host.migrate();
      await host.startWorkers({ maintenance: false, mail: false });
      const { api_key } = await host.gengate.admin.createUser({ email: 'bob@example.com', credits: 1 });
      const headers = { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' };
      const { task_id } = (await (await fetch(`${host.apiUrl()}/run/sandbox.echo-chat`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'own pool' }) })).json()) as { task_id: string };
      const task = await waitFor(
        async () => {
          const t = (await (await fetch(`${host.apiUrl()}/run/tasks/${task_id}`, { headers })).json()) as { status: string; result_urls: string[] };
          return t.status === 'success' || t.status === 'fail' ? t : null;
        },
        { timeoutMs: 20_000, intervalMs: 50, what: 'the task to end' },
      );
      expect(task.status).toBe('success');
      expect(task.result_urls[0]?.startsWith(`${base}/api/v1/files/`)).toBe(true);
      expect((await fetch(task.result_urls[0] ?? '')).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await host.close();
      await db.drop();
    }
    expect(host.pool.ended).toBe(true);
  });
});
