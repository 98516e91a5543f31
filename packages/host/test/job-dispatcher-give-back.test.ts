import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { giveBack } from '../src/jobs/job-dispatcher.js';
import { createBoss, QUEUES } from '../src/postgres/boss-queues.js';

/** The dispatcher's per-group cap against pg-boss itself: what a fetch skips and what it gives back. */
describe('job dispatcher: jobs of a group at its cap, on pg-boss', () => {
  let db: TestDatabase;
  let boss: PgBoss;

  beforeAll(async () => {
    db = await createTestDatabase();
    boss = await createBoss({ connectionString: db.url, logger: pino({ level: 'silent' }) });
  });

  afterAll(async () => {
    await boss?.stop({ graceful: false });
    await db?.drop();
  });

  it('gives claimed jobs back at the same attempt, and a fetch that ignores their group skips them', async () => {
    for (let i = 0; i < 3; i++) await boss.send(QUEUES.callback, { taskId: `t${i}` }, { group: { id: 'u1' } });
    await boss.send(QUEUES.callback, { taskId: 'other' }, { group: { id: 'u2' } });
    const first = await boss.fetch<{ taskId: string }>(QUEUES.callback, { batchSize: 3, includeMetadata: true, ignoreGroups: ['u2'] });
    expect(first.map((j) => j.groupId)).toEqual(['u1', 'u1', 'u1']);
    await giveBack(boss, QUEUES.callback, first.slice(1).map((j) => j.id));
    const skipping = await boss.fetch<{ taskId: string }>(QUEUES.callback, { batchSize: 3, includeMetadata: true, ignoreGroups: ['u1'] });
    expect(skipping.map((j) => j.data.taskId)).toEqual(['other']);
    const again = await boss.fetch<{ taskId: string }>(QUEUES.callback, { batchSize: 3, includeMetadata: true });
    expect(again.map((j) => j.id).sort()).toEqual(first.slice(1).map((j) => j.id).sort());
    expect(again.map((j) => j.retryCount)).toEqual([0, 0]);
  });
});
