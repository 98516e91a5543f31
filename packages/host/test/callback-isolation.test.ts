import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startRecordingReceiver, startTarpit } from './support/callback-receivers.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

const TASKS_EACH = 20;

/**
 * One tenant's slow callback receivers must not delay another tenant's callbacks: every attempt has a
 * total deadline, its socket is destroyed when it ends, and a user has a bounded number of callbacks
 * in flight.
 */
describe('callbacks: a tarpit receiver of one user does not stall another user', () => {
  let db: TestDatabase | null = null;
  let server: SpawnedServer | null = null;
  const closers: (() => Promise<void>)[] = [];

  afterAll(async () => {
    await server?.stop();
    for (const c of closers) await c();
    await db?.drop();
  });

  it('delivers every healthy callback while every tarpit attempt still hangs (none waited for one to end); no tarpit socket outlives its attempt', { timeout: 240_000 }, async () => {
    db = await createTestDatabase();
    const tarpit = await startTarpit();
    const healthy = await startRecordingReceiver();
    closers.push(tarpit.close, healthy.close);
    const env = {
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: tempDataDir(),
      SANDBOX_LATENCY_MS: '20',
      CALLBACK_ALLOW_PRIVATE: 'true',
      CALLBACK_RETRY_DELAY_SECONDS: '1',
      // The tarpit's attempts end only at this deadline, long beside a delivery to a healthy receiver: a
      // healthy callback that had to wait for a tarpit slot would be delivered after a tarpit socket closed.
      CALLBACK_TIMEOUT_MS: '20000',
      // Fewer slots than the tarpit user's callbacks: without the per-user cap (4) the tarpit would take them all.
      CALLBACK_CONCURRENCY: '8',
    };
    const userKey = async (email: string) => (JSON.parse(await runCli(['users', 'create', '--email', email, '--credits', '100'], env)) as { api_key: string }).api_key;
    const slowUser = await userKey('tarpit-owner@example.com');
    const otherUser = await userKey('healthy-owner@example.com');
    server = await spawnServer(env);
    const base = server.url;
    const run = async (key: string, callbackUrl: string) => {
      const res = await fetch(`${base}/api/v1/run/sandbox.echo-chat`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt: 'hello', callback_url: callbackUrl }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { task_id: string }).task_id;
    };

    const slowIds: string[] = [];
    for (let i = 0; i < TASKS_EACH; i++) slowIds.push(await run(slowUser, `${tarpit.url}?mode=${i % 2 === 0 ? 'trickle' : 'silent'}`));
    // Let the tarpit take its slots first.
    await waitFor(async () => (tarpit.sockets.opened >= 4 ? true : null), { timeoutMs: 30_000, what: 'the tarpit user to fill its 4 callback slots' });
    const healthyIds: string[] = [];
    for (let i = 0; i < TASKS_EACH; i++) healthyIds.push(await run(otherUser, healthy.url));

    const closedWhenHealthyDone = await waitFor(async () => (healthyIds.every((id) => healthy.receivedAt.has(id)) ? tarpit.sockets.closed : null), {
      timeoutMs: 60_000,
      intervalMs: 20,
      what: 'every healthy callback',
    });
    // The order of events: every healthy callback arrived before any tarpit attempt had ended.
    expect(closedWhenHealthyDone).toBe(0);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query<{ n: number }>('select count(*)::int as n from gengate.callback_attempts where task_id = any($1)', [slowIds]);
      expect(rows[0]?.n).toBe(0); // ... and none had been recorded

      // The tarpit's attempts end by their deadline and are recorded; each ended attempt closed its socket.
      const attempts = await waitFor(
        async () => {
          const { rows: a } = await c.query<{ n: number; cut: number }>('select count(*)::int as n, (count(*) filter (where not delivered))::int as cut from gengate.callback_attempts where task_id = any($1)', [slowIds]);
          return (a[0]?.n ?? 0) >= 4 && (a[0]?.cut ?? 0) >= 1 ? (a[0]?.n ?? 0) : null;
        },
        { timeoutMs: 120_000, intervalMs: 100, what: 'four ended tarpit attempts, one of them cut off' },
      );
      await waitFor(async () => (tarpit.sockets.closed >= attempts ? true : null), { timeoutMs: 30_000, what: 'the sockets of ended attempts to close' });
      // A receiver that never answers is cut off by the deadline; one that sent 200 headers and trickles is delivered.
      const { rows: outcomes } = await c.query<{ error: string | null; delivered: boolean }>('select error, delivered from gengate.callback_attempts where task_id = any($1)', [slowIds]);
      expect(outcomes.filter((o) => !o.delivered).every((o) => /within 20000 ms/.test(o.error ?? ''))).toBe(true);
      expect(outcomes.some((o) => !o.delivered)).toBe(true);
    } finally {
      await c.end();
    }
    // Never more tarpit sockets than the per-user cap of callbacks in flight (default 4).
    expect(tarpit.sockets.maxOpen).toBeLessThanOrEqual(4);
    process.stdout.write(`tarpit sockets: opened ${tarpit.sockets.opened}, closed ${tarpit.sockets.closed}, at most ${tarpit.sockets.maxOpen} open at once\n`);
    await server.stop();
    await waitFor(async () => (tarpit.sockets.open === 0 ? true : null), { timeoutMs: 30_000, what: 'every tarpit socket to close' });
  });
});
