import { randomUUID } from 'node:crypto';
import type { Authenticated, TaskIntakeRequest, TaskIntakeResult } from '@gengate/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JOBS_READY_CHANNEL, JobWakeups } from '../src/postgres/job-wakeups.js';
import { PgTaskIntake } from '../src/postgres/pg-task-intake.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { openPgGengate, type PgGengate } from './support/pg-gengate.js';

const IMAGE = 'sandbox.pixel-image';
const CREDIT = 1_000_000;

/** One submission of the scenario: its quote in credits, an Idempotency-Key, or the user's revoked second key. */
interface Step {
  readonly quote: number;
  readonly idem?: string;
  readonly revokedKey?: boolean;
}

/**
 * Group commit (PgTaskIntake over gengate_submit_tasks): a user's submissions made in one event-loop turn
 * go to the database as one statement, and each is answered as if they had been sent one after another.
 */
for (const pipeline of [true, false]) {
  describe(`a burst of one user's submissions in one turn (${pipeline ? 'pipelined' : 'one statement at a time'})`, () => {
    let h: PgGengate;

    beforeAll(async () => {
      h = await openPgGengate({ pipeline });
    });

    afterAll(async () => {
      await h?.close();
    });

    const intake = () => {
      const wakeups = new JobWakeups(h.pool);
      return new PgTaskIntake(h.pool, DEFAULT_SCHEMA, h.boss, (queue, jobs) => wakeups.wake(queue, jobs));
    };

    /** A user with `credits` and a second API key, revoked. */
    const userWithRevokedKey = async (credits: number): Promise<{ auth: Authenticated; revokedKeyId: string }> => {
      const auth = await h.user(credits);
      const created = await h.gengate.keys.create(auth, { name: 'revoked' });
      await h.gengate.keys.revoke(auth, created.id);
      return { auth, revokedKeyId: created.id };
    };

    const request = (auth: Authenticated, revokedKeyId: string, step: Step, taskId = randomUUID()): TaskIntakeRequest => ({
      task: {
        id: taskId,
        userId: auth.userId,
        memberId: auth.memberId ?? auth.userId,
        apiKeyId: step.revokedKey === true ? revokedKeyId : auth.apiKeyId,
        modelId: IMAGE,
        modality: 'image',
        request: { prompt: 'burst' },
        callbackUrl: null,
        quotedMicro: step.quote * CREDIT,
        quotedCostMicro: (step.quote * CREDIT) / 2,
      },
      maxRunning: 2,
      maxQueued: 2,
      providerId: 'sandbox',
      at: new Date(),
      idempotency: step.idem === undefined ? null : { key: step.idem, requestHash: `hash-${step.idem}`, response: { task_id: taskId } },
    });

    /** Outcomes with task ids replaced by the index of the step that submitted them (users differ, positions do not). */
    const normalized = (results: readonly TaskIntakeResult[], ids: readonly string[]) =>
      JSON.parse(ids.reduce((s, id, i) => s.replaceAll(id, `#${i}`), JSON.stringify(results))) as unknown;

    /** What the database holds for these submissions: the account's held amount, each task's admission, its job, the idempotency records. */
    const stateOf = async (userId: string, ids: readonly string[]) => {
      const held = (await h.pool.query<{ held: string }>('select held_micro as held from gengate.account_totals where user_id = $1', [userId])).rows[0]?.held;
      const tasks = await h.pool.query<{ id: string; admitted: boolean; jobs: number }>(
        `select t.id, t.admitted, (select count(*)::int from pgboss.job j where j.name = 'gengate-generate' and j.data->>'taskId' = t.id::text) as jobs
         from gengate.tasks t where t.user_id = $1`,
        [userId],
      );
      const byId = new Map(tasks.rows.map((t) => [t.id, { admitted: t.admitted, jobs: t.jobs }]));
      const records = (await h.pool.query('select 1 from gengate.idempotency_keys where user_id = $1', [userId])).rowCount;
      return { held, tasks: ids.map((id) => byId.get(id) ?? null), records };
    };

    it('answers and writes exactly what the same submissions sent one after another do, refusals mid-batch included', async () => {
      // 13 credits, 2 running image slots, 2 queued: holds of 3 until the queue is full and the credits run out.
      const steps: Step[] = [
        { quote: 3, idem: 'k1' },
        { quote: 3, idem: 'k1' }, // a replay of the first, inside the batch
        { quote: 3, revokedKey: true },
        { quote: 3 },
        { quote: 3 }, // queued
        { quote: 3 }, // queued: 12 of 13 credits held
        { quote: 1 }, // queue full (the credits would do)
        { quote: 3 }, // insufficient credits after the holds before it
        { quote: 1, idem: 'k2' }, // queue full again: its idempotency record rolls back with it
      ];
      const expected = [
        { outcome: 'accepted', admitted: true },
        { outcome: 'replay', requestHash: 'hash-k1', response: { task_id: '#0' } },
        { outcome: 'key_revoked' },
        { outcome: 'accepted', admitted: true },
        { outcome: 'accepted', admitted: false },
        { outcome: 'accepted', admitted: false },
        { outcome: 'queue_full', admitted: 2, queued: 2 },
        { outcome: 'insufficient_credits' },
        { outcome: 'queue_full', admitted: 2, queued: 2 },
      ];

      const one = await userWithRevokedKey(13);
      const sequentialIntake = intake();
      const sequentialRequests = steps.map((s) => request(one.auth, one.revokedKeyId, s));
      const sequential: TaskIntakeResult[] = [];
      for (const r of sequentialRequests) sequential.push(await sequentialIntake.accept(r));

      const burst = await userWithRevokedKey(13);
      const batchedIntake = intake();
      const burstRequests = steps.map((s) => request(burst.auth, burst.revokedKeyId, s));
      const connect = vi.spyOn(h.pool, 'connect');
      let batched: TaskIntakeResult[];
      try {
        batched = await Promise.all(burstRequests.map((r) => batchedIntake.accept(r)));
        // One statement on one connection for the whole burst.
        expect(connect).toHaveBeenCalledTimes(1);
      } finally {
        connect.mockRestore();
      }

      const sequentialIds = sequentialRequests.map((r) => r.task.id);
      const burstIds = burstRequests.map((r) => r.task.id);
      expect(normalized(sequential, sequentialIds)).toEqual(expected);
      expect(normalized(batched, burstIds)).toEqual(expected);
      const sequentialState = await stateOf(one.auth.userId, sequentialIds);
      expect(sequentialState).toEqual({
        held: String(12 * CREDIT),
        tasks: [{ admitted: true, jobs: 1 }, null, null, { admitted: true, jobs: 1 }, { admitted: false, jobs: 0 }, { admitted: false, jobs: 0 }, null, null, null],
        records: 1,
      });
      expect(await stateOf(burst.auth.userId, burstIds)).toEqual(sequentialState);
      expect(await ledgerViolations(h.db.url)).toEqual([]);
    });

    it("counts the batch's own tasks against a key's concurrency cap and its holds against the key's spend limit, as one after another", async () => {
      // Two keys of one user in one burst: A may run 2 tasks at once, B may spend 5 credits.
      const scenario = async (burst: boolean) => {
        const auth = await h.user(100);
        const a = await h.gengate.keys.create(auth, { name: 'capped', max_concurrent_tasks: 2 });
        const b = await h.gengate.keys.create(auth, { name: 'limited', spend_limit: 5 });
        const steps: [string, number][] = [[a.id, 1], [b.id, 3], [a.id, 1], [b.id, 3], [a.id, 1], [b.id, 2], [b.id, 1]];
        const requests = steps.map(([key, quote]) => ({ ...request({ ...auth, apiKeyId: key }, key, { quote }), maxRunning: 10, maxQueued: 10 }));
        const intakeOf = intake();
        const results: TaskIntakeResult[] = [];
        if (burst) results.push(...(await Promise.all(requests.map((r) => intakeOf.accept(r)))));
        else for (const r of requests) results.push(await intakeOf.accept(r));
        const spent = async (id: string) => (await h.gengate.keys.update(auth, id, { name: 'read' })).spent;
        return { outcomes: results.map((r) => (r.outcome === 'key_refused' ? r.refusal.outcome : r.outcome)), spentA: await spent(a.id), spentB: await spent(b.id) };
      };
      const expected = {
        outcomes: ['accepted', 'accepted', 'accepted', 'key_budget_exceeded', 'key_concurrency_exceeded', 'accepted', 'key_budget_exceeded'],
        spentA: 2,
        spentB: 5,
      };
      expect(await scenario(false)).toEqual(expected);
      expect(await scenario(true)).toEqual(expected);
      expect(await ledgerViolations(h.db.url)).toEqual([]);
    });

    it('folds the ends committed before the batch into the account first: credits a failure released are available to every item', async () => {
      const { auth, revokedKeyId } = await userWithRevokedKey(10);
      const batchedIntake = intake();
      const first = request(auth, revokedKeyId, { quote: 6 });
      expect(await batchedIntake.accept(first)).toEqual({ outcome: 'accepted', admitted: true });
      // Its end, as a worker's: no balance alert, so the account row is left alone and the released hold
      // (and the freed running slot) wait in account_pending for the next holder of the account lock.
      await h.pool.query(`select gengate.gengate_finish_fail($1, 'upstream failed', now(), null, 8, 2, 50, null, null, null, null)`, [first.task.id]);
      expect((await h.pool.query('select count(*)::int as n from gengate.account_pending where user_id = $1', [auth.userId])).rows[0]).toEqual({ n: 2 });
      // Two of 5: only the 10 credits the fold gives back cover both (the row alone still holds 6 of them).
      const results = await Promise.all([5, 5].map((quote) => batchedIntake.accept(request(auth, revokedKeyId, { quote }))));
      expect(results).toEqual([
        { outcome: 'accepted', admitted: true },
        { outcome: 'accepted', admitted: true },
      ]);
      expect((await h.pool.query('select held_micro::bigint as held, running_image as running from gengate.accounts where user_id = $1', [auth.userId])).rows[0]).toEqual({
        held: String(10 * CREDIT),
        running: 2,
      });
      expect(await ledgerViolations(h.db.url)).toEqual([]);
    });

    it('wakes the workers once for the batch, with how many of its tasks were admitted', async () => {
      const listener = new pg.Client({ connectionString: h.db.url });
      await listener.connect();
      try {
        const payloads: string[] = [];
        let heard!: () => void;
        const first = new Promise<void>((resolve) => (heard = resolve));
        listener.on('notification', (n) => {
          payloads.push(n.payload ?? '');
          heard();
        });
        await listener.query(`listen ${JOBS_READY_CHANNEL}`);
        const { auth, revokedKeyId } = await userWithRevokedKey(100);
        const batchedIntake = intake();
        // Three submissions: two take the running slots, the third waits in the queue without a job.
        const results = await Promise.all([1, 1, 1].map((quote) => batchedIntake.accept(request(auth, revokedKeyId, { quote }))));
        expect(results.map((r) => (r.outcome === 'accepted' ? r.admitted : r.outcome))).toEqual([true, true, false]);
        await first;
        // The NOTIFY followed the statement on its connection: a round trip on the listener's own
        // connection after it was delivered cannot reorder it, so nothing more is on its way.
        await listener.query('select 1');
        expect(payloads).toEqual(['gengate-generate 2']);
      } finally {
        await listener.end();
      }
    });

    it("fails every caller of a batch that hits an error other than a refusal, and leaves other users' batches alone", async () => {
      const broken = await userWithRevokedKey(100);
      const fine = await userWithRevokedKey(100);
      const batchedIntake = intake();
      const duplicate = randomUUID();
      // Two submissions with one task id (a primary key violation: no refusal) and, in the same turn, another user's two.
      const calls = [
        batchedIntake.accept(request(broken.auth, broken.revokedKeyId, { quote: 1 }, duplicate)),
        batchedIntake.accept(request(fine.auth, fine.revokedKeyId, { quote: 1 })),
        batchedIntake.accept(request(broken.auth, broken.revokedKeyId, { quote: 1 })),
        batchedIntake.accept(request(broken.auth, broken.revokedKeyId, { quote: 1 }, duplicate)),
        batchedIntake.accept(request(fine.auth, fine.revokedKeyId, { quote: 1 })),
      ];
      const settled = await Promise.allSettled(calls);
      expect(settled.map((s) => (s.status === 'fulfilled' ? s.value.outcome : (s.reason as { code?: string }).code))).toEqual([
        '23505',
        'accepted',
        '23505',
        '23505',
        'accepted',
      ]);
      // The failed batch wrote nothing, not even its items that came before the error.
      expect((await h.pool.query('select 1 from gengate.tasks where user_id = $1', [broken.auth.userId])).rowCount).toBe(0);
      expect((await h.pool.query('select 1 from gengate.tasks where user_id = $1', [fine.auth.userId])).rowCount).toBe(2);
      expect(await ledgerViolations(h.db.url)).toEqual([]);
    });
  });
}
