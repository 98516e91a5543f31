import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackRepository } from '../src/callbacks/callback-repository.js';
import { startCallbackWorker } from '../src/jobs/callback-worker.js';
import { createBoss, QUEUES } from '../src/postgres/boss-queues.js';
import { unflushedFetchDb } from '../src/postgres/unflushed-fetch.js';
import { openPool } from './support/open-pool.js';

/** Every statement text a pool's clients are sent (the pool's clients patched as they connect). */
function recordStatements(p: pg.Pool): string[] {
  const texts: string[] = [];
  p.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      texts.push(typeof first === 'string' ? first : typeof first === 'object' && first !== null && 'text' in first ? String(first.text) : '');
      return query(...args);
    };
  });
  return texts;
}

/** The generation and callback fetches' database: pg-boss's fetch in a transaction of its own with synchronous_commit off. */
describe('unflushedFetchDb', () => {
  let db: TestDatabase;
  let boss: PgBoss;
  let pool: ReturnType<typeof openPool>;

  beforeAll(async () => {
    db = await createTestDatabase();
    boss = await createBoss({ connectionString: db.url, logger: pino({ level: 'silent' }) });
    // One connection: every statement below runs on the same session, so a setting that leaked would show.
    pool = openPool(db.url, 1);
  });

  afterAll(async () => {
    await boss?.stop({ graceful: false });
    await pool?.close();
    await db?.drop();
  });

  it('claims the jobs pg-boss would claim, committed, with synchronous_commit off for that transaction only', async () => {
    const ids = [await boss.send(QUEUES.generate, { taskId: 'a' }), await boss.send(QUEUES.generate, { taskId: 'b' })];
    const fetchDb = unflushedFetchDb(pool.pool);
    const jobs = await boss.fetch<{ taskId: string }>(QUEUES.generate, { batchSize: 5, db: fetchDb });
    expect(jobs.map((j) => j.id).sort()).toEqual([...ids].sort());
    // Committed: another session sees them active, and a second fetch finds nothing left.
    const seen = await boss.getDb().executeSql(`select state from pgboss.job where id = any($1::uuid[])`, [ids]);
    expect(seen.rows.map((r: { state: string }) => r.state)).toEqual(['active', 'active']);
    expect(await boss.fetch(QUEUES.generate, { batchSize: 5, db: fetchDb })).toEqual([]);

    const inside = await fetchDb.executeSql(`select current_setting('synchronous_commit') as s`);
    expect(inside.rows[0]).toEqual({ s: 'off' });
    const after = await pool.pool.query<{ s: string }>(`select current_setting('synchronous_commit') as s`);
    expect(after.rows[0]).toEqual({ s: 'on' });
  });

  it("rejects with the statement's own error, rolls back, and leaves the connection usable", async () => {
    const fetchDb = unflushedFetchDb(pool.pool);
    await expect(fetchDb.executeSql('select 1 / 0')).rejects.toMatchObject({ code: '22012' });
    const next = await pool.pool.query<{ one: number }>('select 1 as one');
    expect(next.rows[0]).toEqual({ one: 1 });
  });

  it('is where the callback worker fetches its jobs when given a fetchPool', async () => {
    const fetchPool = openPool(db.url, 1);
    const texts = recordStatements(fetchPool.pool);
    let delivered!: (taskId: string) => void;
    const handled = new Promise<string>((resolve) => (delivered = resolve));
    // The delivery finds no task: the handler returns at once and the dispatcher completes the job.
    const callbacks: Pick<CallbackRepository, 'delivery' | 'record'> = {
      delivery: async (taskId) => {
        delivered(taskId);
        return null;
      },
      record: async () => undefined,
    };
    const id = await boss.send(QUEUES.callback, { taskId: 'cb-1' });
    const worker = await startCallbackWorker(boss, { callbacks: callbacks as CallbackRepository, urls: { urlFor: () => '' } }, { allowPrivate: false, timeoutMs: 1_000, fetchPool: fetchPool.pool, logger: pino({ level: 'silent' }) });
    try {
      expect(await handled).toBe('cb-1');
      const unflushed = texts.findIndex((t) => /^\s*set local synchronous_commit = off\s*$/i.test(t));
      expect(unflushed, texts.join('\n')).toBeGreaterThanOrEqual(0);
      expect(texts[unflushed + 1]).toMatch(/j\.name = 'gengate-callback'[\s\S]*SKIP LOCKED/);
      expect(texts[unflushed - 1]).toMatch(/^begin$/i);
      expect(texts[unflushed + 2]).toMatch(/^commit$/i);
    } finally {
      await worker.stop();
      await fetchPool.close();
    }
    const job = await boss.getJobById(QUEUES.callback, id ?? '');
    expect(job?.state).toBe('completed');
  });
});
