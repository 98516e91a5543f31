import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { tempDataDir } from './support/spawn-server.js';

/**
 * The key cache (2 s, per process) serves submissions and polls, and a revocation still holds at once
 * across processes: two hosts on one database, each with its own pool and cache. The key is warm in B's
 * cache; A revokes it; B's very next submission is refused by gengate_submit_task's re-check (401, no
 * task, no hold) and its next poll by the TaskPoll's (401), without waiting for B's cache to expire.
 */
describe('API keys cached by one process, revoked by another', () => {
  let db: TestDatabase;
  let a: RunningServer;
  let b: RunningServer;
  let admin: pg.Client;
  let rootKey: string;

  const call = (server: RunningServer, key: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });
  const submit = (server: RunningServer, key: string, headers: Record<string, string> = {}) =>
    call(server, key, '/run/sandbox.pixel-image', { method: 'POST', body: JSON.stringify({ prompt: 'cached' }), headers });
  const count = async (sql: string, values: unknown[]) => (await admin.query<{ n: number }>(sql, values)).rows[0]?.n ?? -1;

  async function newKey(body: object = {}): Promise<{ id: string; key: string }> {
    const res = await call(a, rootKey, '/api-keys', { method: 'POST', body: JSON.stringify({ name: `k-${Math.random()}`, ...body }) });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; key: string };
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = (): Record<string, string> => ({ DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), PORT: '0', ROLE: 'api', TRUST_PROXY: '127.0.0.1,::1', DASHBOARD_ENABLED: 'false' });
    a = await startServer(loadConfig(env()), { logger: pino({ level: 'silent' }) });
    b = await startServer(loadConfig(env()), { logger: pino({ level: 'silent' }) });
    rootKey = (await a.gengate.admin.createUser({ email: 'cache@example.com', credits: 1_000 })).api_key;
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('a submission through the process that cached the key is refused at once: 401, no task, no hold (20 keys in a row)', { timeout: 120_000 }, async () => {
    for (let i = 0; i < 20; i++) {
      const { id, key } = await newKey();
      // Warm B's cache with a submission (and its poll).
      const first = await submit(b, key);
      expect(first.status).toBe(200);
      const { task_id } = (await first.json()) as { task_id: string };
      expect((await call(b, key, `/run/tasks/${task_id}`)).status).toBe(200);
      const heldBefore = await count(`select coalesce(sum(amount_micro), 0)::bigint::int as n from gengate.holds where state = 'held'`, []);

      expect((await call(a, rootKey, `/api-keys/${id}`, { method: 'DELETE' })).status).toBe(200);
      const refused = await submit(b, key);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('authentication_failed');
      // Only the warm-up task exists for this key (failed by the revocation), and no new hold.
      expect(await count(`select count(*)::int as n from gengate.tasks where api_key_id = $1`, [id])).toBe(1);
      expect(await count(`select coalesce(sum(amount_micro), 0)::bigint::int as n from gengate.holds where state = 'held'`, [])).toBeLessThanOrEqual(heldBefore);
      // The poll through B, authenticated from its cache, is refused too.
      const poll = await call(b, key, `/run/tasks/${task_id}`);
      expect(poll.status).toBe(401);
    }
  });

  it('a warm submission and a warm poll do not look the key up again (the cache is really used)', async () => {
    const { key } = await newKey();
    const first = await submit(b, key);
    const { task_id } = (await first.json()) as { task_id: string };
    // Break the key's hash in the database: a lookup would now fail, the cache still answers.
    await admin.query(`update gengate.api_keys set secret_hash = 'moved-' || secret_hash where mask = $1`, [`gg_live_...${key.slice(-4)}`]);
    try {
      expect((await call(b, key, `/run/tasks/${task_id}`)).status).toBe(200);
      expect((await submit(b, key)).status).toBe(200);
      // A request that does not accept a cached key (any other route) reads the database: unknown now.
      expect((await call(b, key, '/billing/balance')).status).toBe(401);
    } finally {
      await admin.query(`update gengate.api_keys set secret_hash = substr(secret_hash, 7) where secret_hash like 'moved-%'`);
    }
  });

  it('applies the IP whitelist and the exact per-key limit from the cached row', async () => {
    const { key } = await newKey({ ip_whitelist: ['203.0.113.7'], rate_limit_per_minute: 3 });
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    expect((await submit(b, key, from('203.0.113.7'))).status).toBe(200);
    // Cached now: the whitelist still refuses another address, before anything is held.
    const refused = await submit(b, key, from('203.0.113.8'));
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('ip_not_allowed');
    // 3 per minute, counted in PostgreSQL across both processes (the 403 came before the count): 2 more, then 429.
    const statuses: number[] = [];
    for (const server of [a, b, b]) statuses.push((await submit(server, key, from('203.0.113.7'))).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});
