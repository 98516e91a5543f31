import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { touchHeldJobs } from '../src/jobs/job-heartbeat.js';
import { BOSS_SCHEMA, createBoss, QUEUES } from '../src/postgres/boss-queues.js';

/** The dispatcher's heartbeat against pg-boss itself, beside a transaction that ends the same jobs. */
describe('job heartbeat (touchHeldJobs)', () => {
  let db: TestDatabase;
  let boss: PgBoss;
  let ender: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    boss = await createBoss({ connectionString: db.url, logger: pino({ level: 'silent' }) });
    ender = new pg.Client({ connectionString: db.url });
    await ender.connect();
  });

  afterAll(async () => {
    await ender?.end();
    await boss?.stop({ graceful: false });
    await db?.drop();
  });

  /** Two jobs fetched (active), in job-id order: the order an index scan of pg-boss's key locks them. */
  async function twoActiveJobs(): Promise<[{ id: string; retryCount: number }, { id: string; retryCount: number }]> {
    for (let i = 0; i < 2; i++) await boss.send(QUEUES.generate, { taskId: `t${i}` });
    const jobs = (await boss.fetch(QUEUES.generate, { batchSize: 2 })).map((j) => ({ id: j.id, retryCount: j.retryCount })).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(jobs).toHaveLength(2);
    return jobs as [{ id: string; retryCount: number }, { id: string; retryCount: number }];
  }

  const heartbeatOf = async (id: string): Promise<Date | null> =>
    (await ender.query<{ h: Date | null }>(`select heartbeat_on as h from ${BOSS_SCHEMA}.job where id = $1`, [id])).rows[0]?.h ?? null;

  /** Resolves once some backend waits for a row lock (the wait-for edge a deadlock needs). */
  async function someoneWaitsForALock(): Promise<void> {
    const watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    try {
      for (;;) {
        const { rows } = await watcher.query<{ n: number }>(`select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and a.datname = current_database()`);
        if ((rows[0]?.n ?? 0) > 0) return;
        await watcher.query('select pg_sleep(0.01)');
      }
    } finally {
      await watcher.end();
    }
  }

  it('writes the heartbeat of the jobs held at their attempt, and says which are no longer ours', async () => {
    const [a, b] = await twoActiveJobs();
    const before = await heartbeatOf(a.id);
    await ender.query(`update ${BOSS_SCHEMA}.job set heartbeat_on = now() - interval '1 hour' where id = any($1::uuid[])`, [[a.id, b.id]]);
    const first = await touchHeldJobs(boss, QUEUES.generate, [a, b]);
    expect(first.touched).toBe(2);
    expect([...first.alive].sort()).toEqual([a.id, b.id]);
    expect((await heartbeatOf(a.id))?.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(before).not.toBeNull();

    // b completed; a held at an attempt it is no longer at: neither is ours any more, and neither is touched.
    await boss.complete(QUEUES.generate, b.id);
    const second = await touchHeldJobs(boss, QUEUES.generate, [{ id: a.id, retryCount: a.retryCount + 1 }, b]);
    expect(second).toEqual({ alive: new Set(), touched: 0 });
  });

  it('skips a job whose row an ending transaction holds, and so never closes a lock cycle with it', async () => {
    const [low, high] = await twoActiveJobs();
    // An end of both jobs, in the other order than an index scan: it holds the higher id first ...
    await ender.query('begin');
    await ender.query(`update ${BOSS_SCHEMA}.job set state = 'completed', completed_on = now() where name = $1 and id = $2`, [QUEUES.generate, high.id]);
    // ... the heartbeat answers at once: the lower job touched, the held one skipped but still alive ...
    const beat = await touchHeldJobs(boss, QUEUES.generate, [low, high]);
    expect(beat.touched).toBe(1);
    expect([...beat.alive].sort()).toEqual([low.id, high.id]);
    // ... and the end takes the lower job's row without waiting for anyone, and commits.
    await ender.query(`update ${BOSS_SCHEMA}.job set state = 'completed', completed_on = now() where name = $1 and id = $2`, [QUEUES.generate, low.id]);
    await ender.query('commit');
    expect((await touchHeldJobs(boss, QUEUES.generate, [low, high])).alive.size).toBe(0);
  });

  it("(why) pg-boss's touch() waits for the held row, and the same end then deadlocks with it", async () => {
    const [low, high] = await twoActiveJobs();
    await ender.query('begin');
    await ender.query(`update ${BOSS_SCHEMA}.job set state = 'completed', completed_on = now() where name = $1 and id = $2`, [QUEUES.generate, high.id]);
    const touch = boss.touch(QUEUES.generate, [low, high]).then(
      () => null,
      (e: Error) => e,
    );
    await someoneWaitsForALock(); // touch() holds the lower row and waits for the higher one
    const end = ender.query(`update ${BOSS_SCHEMA}.job set state = 'completed', completed_on = now() where name = $1 and id = $2`, [QUEUES.generate, low.id]).then(
      () => null,
      (e: Error) => e,
    );
    const [touchError, endError] = await Promise.all([touch, end]);
    await ender.query(endError ? 'rollback' : 'commit');
    // PostgreSQL broke the cycle after deadlock_timeout by failing one side.
    expect([touchError, endError].map((e) => (e as { code?: string } | null)?.code).filter(Boolean)).toEqual(['40P01']);
  });
});
