import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBoss, QUEUES } from '../src/postgres/boss-queues.js';
import { unflushedFetchDb } from '../src/postgres/unflushed-fetch.js';
import { openPool } from './support/open-pool.js';

/** The generation fetch's database: pg-boss's fetch in a transaction of its own with synchronous_commit off. */
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
});
