import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/** Issue 3: keys that hold across processes — shared limits, instant revocation, whitelists, no secret at rest. */
describe('API keys across two host processes on one database', () => {
  let db: TestDatabase;
  let a: SpawnedServer;
  let b: SpawnedServer;
  let rootKey: string;

  const call = (server: SpawnedServer, key: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers },
    });

  async function createKey(body: object): Promise<{ id: string; key: string }> {
    const res = await call(a, rootKey, '/api-keys', { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; key: string };
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    // TRUST_PROXY lets the whitelist tests choose the client address with X-Forwarded-For.
    const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '50', RUN_WORKER: 'false', TRUST_PROXY: '127.0.0.1,::1' };
    rootKey = (JSON.parse(await runCli(['users', 'create', '--email', 'keys@example.com', '--credits', '1000'], env)) as { api_key: string }).api_key;
    [a, b] = await Promise.all([spawnServer(env), spawnServer(env)]);
  });

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await db?.drop();
  });

  it('shares one per-minute count: 40 concurrent requests over both processes, limit 10 -> exactly 10 succeed', async () => {
    const { key } = await createKey({ name: 'limited', rate_limit_per_minute: 10 });
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2 ? a : b, key, '/billing/balance')));
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok.length).toBe(10);
    expect(limited.length).toBe(30);
    for (const r of limited) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.headers.get('ratelimit-limit')).toBe('10');
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
      const body = (await r.json()) as { code: number; error: { type: string } };
      expect(body).toMatchObject({ code: 429, error: { type: 'rate_limited' } });
    }
    for (const r of ok) {
      expect(r.headers.get('ratelimit-limit')).toBe('10');
      expect(Number(r.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
  });

  it('checks limits before any credit is held: a refused run creates nothing', async () => {
    const { key } = await createKey({ name: 'one-per-minute', rate_limit_per_minute: 1 });
    const body = JSON.stringify({ prompt: 'x' });
    const first = await call(a, key, '/run/sandbox.echo-chat', { method: 'POST', body });
    expect(first.status).toBe(200);
    const before = (await (await call(a, rootKey, '/billing/balance')).json()) as { held_credits: number };
    const second = await call(b, key, '/run/sandbox.echo-chat', { method: 'POST', body });
    expect(second.status).toBe(429);
    const after = (await (await call(a, rootKey, '/billing/balance')).json()) as { held_credits: number };
    expect(after.held_credits).toBe(before.held_credits);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query<{ n: number }>('select count(*)::int as n from gengate.tasks t join gengate.api_keys k on k.id = t.api_key_id where k.name = $1', ['one-per-minute']);
    await client.end();
    expect(rows[0]?.n).toBe(1);
  });

  it('revokes at once for every process: revoke through A, then B answers 401, 100 times in a row', { timeout: 60_000 }, async () => {
    let successes = 0;
    for (let i = 0; i < 100; i++) {
      const { id, key } = await createKey({ name: `short-lived-${i}` });
      expect((await call(b, key, '/billing/balance')).status).toBe(200);
      const del = await call(a, rootKey, `/api-keys/${id}`, { method: 'DELETE' });
      expect(del.status).toBe(200);
      const after = await call(b, key, '/billing/balance');
      if (after.status !== 401) successes++;
    }
    expect(successes).toBe(0);
  });

  it('ends the revoked key\'s waiting tasks in fail and releases their holds', async () => {
    const { id, key } = await createKey({ name: 'submitter' });
    const res = await call(a, key, '/run/sandbox.pixel-image', { method: 'POST', body: JSON.stringify({ prompt: 'queued' }) });
    const taskId = ((await res.json()) as { task_id: string }).task_id;
    const held = (await (await call(a, rootKey, '/billing/balance')).json()) as { held_credits: number };
    expect(held.held_credits).toBeGreaterThan(0);
    const del = (await (await call(b, rootKey, `/api-keys/${id}`, { method: 'DELETE' })).json()) as { failed_task_ids: string[] };
    expect(del.failed_task_ids).toContain(taskId);
    const task = await waitFor(
      async () => {
        const t = (await (await call(a, rootKey, `/run/tasks/${taskId}`)).json()) as { status: string; error_message: string | null };
        return t.status === 'fail' ? t : null;
      },
      { timeoutMs: 30_000, what: 'the task to fail' },
    );
    expect(task.error_message).toMatch(/revoked/);
    const after = (await (await call(a, rootKey, '/billing/balance')).json()) as { held_credits: number };
    // The sandbox image quote (512 x 512) is 2 credits; exactly that hold is released.
    expect(after.held_credits).toBeCloseTo(held.held_credits - 2, 6);
  });

  it('keeps the secret only in the create response: not in listings, the database or the logs', async () => {
    const { key } = await createKey({ name: 'secret-check' });
    const list = await (await call(a, rootKey, '/api-keys')).text();
    expect(list).not.toContain(key);
    expect(list).toContain(`gg_live_...${key.slice(-4)}`);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    // Every row of every table, gengate's and pg-boss's, as text.
    const tables = await client.query<{ schema: string; name: string }>(
      `select table_schema as schema, table_name as name from information_schema.tables
       where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'`,
    );
    expect(tables.rows.length).toBeGreaterThan(5);
    let everything = '';
    for (const t of tables.rows) {
      const rows = await client.query(`select * from "${t.schema}"."${t.name}"`);
      everything += JSON.stringify(rows.rows);
    }
    await client.end();
    expect(everything).toContain(key.slice(-4));
    expect(everything).not.toContain(key.slice(8));
    await call(b, key, '/billing/balance', { headers: { 'X-Request-Id': 'secret-probe' } });
    await call(b, 'gg_live_' + 'x'.repeat(43), '/billing/balance');
    const logged = (await a.loggedOutput()) + (await b.loggedOutput());
    expect(logged).not.toContain(key.slice(8));
    expect(logged).not.toContain(rootKey.slice(8));
  });

  it.each([
    ['exact IPv4', ['203.0.113.7'], '203.0.113.7', '203.0.113.8'],
    ['IPv4 CIDR', ['198.51.100.0/24'], '198.51.100.200', '198.51.101.1'],
    ['exact IPv6', ['2001:db8::7'], '2001:db8::7', '2001:db8::8'],
    ['IPv6 CIDR', ['2001:db8:abcd::/48'], '2001:db8:abcd:12::1', '2001:db8:abce::1'],
  ])('IP whitelist, %s: allowed and refused with 403 ip_not_allowed', async (_label, whitelist, allowed, refused) => {
    const { key } = await createKey({ name: `wl-${allowed}`, ip_whitelist: whitelist });
    const ok = await call(a, key, '/billing/balance', { headers: { 'X-Forwarded-For': allowed } });
    expect(ok.status).toBe(200);
    const no = await call(b, key, '/billing/balance', { headers: { 'X-Forwarded-For': refused } });
    expect(no.status).toBe(403);
    expect(((await no.json()) as { error: { type: string } }).error.type).toBe('ip_not_allowed');
  });

  it('answers 404 (not a database error) for malformed ids, and 401 with a Bearer challenge', async () => {
    for (const [method, path] of [['PUT', '/api-keys/not-a-uuid'], ['DELETE', '/api-keys/not-a-uuid'], ['DELETE', '/billing/alerts/nope'], ['GET', '/run/tasks/nope']] as const) {
      const res = await call(a, rootKey, path, { method, ...(method === 'PUT' ? { body: JSON.stringify({ name: 'x' }) } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const unauth = await call(a, 'gg_live_unknown', '/models');
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toBe('Bearer realm="gengate"');
  });

  it('refuses a malformed whitelist entry with 400 on create and update, changing nothing', async () => {
    const bad = await call(a, rootKey, '/api-keys', { method: 'POST', body: JSON.stringify({ name: 'bad', ip_whitelist: ['10.0.0.0/33'] }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('ip_whitelist.0');
    const { id } = await createKey({ name: 'to-update', ip_whitelist: ['10.0.0.1'] });
    const upd = await call(a, rootKey, `/api-keys/${id}`, { method: 'PUT', body: JSON.stringify({ ip_whitelist: ['not-an-ip'] }) });
    expect(upd.status).toBe(400);
    const listed = (await (await call(a, rootKey, '/api-keys')).json()) as { data: { id: string; ip_whitelist: string[] }[] };
    expect(listed.data.find((k) => k.id === id)?.ip_whitelist).toEqual(['10.0.0.1']);
  });
});
