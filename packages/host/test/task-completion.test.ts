import { TOKENS, UnitOfWorkTaskCompletion, type Authenticated } from '@gengate/core/internal';
import { runAsJob } from '../src/postgres/current-job.js';
import { QUEUES } from '../src/postgres/boss-queues.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgTaskCompletion } from '../src/postgres/pg-task-completion.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { CHARGE, IMAGE, imageSuccess as success } from './support/image-success.js';
import { openPgGengate, type PgGengate } from './support/pg-gengate.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';


for (const pipeline of [true, false]) {
  describe(`a success committed by PgTaskCompletion (${pipeline ? 'pipelined' : 'one statement at a time'})`, () => {
    let h: PgGengate;

    beforeAll(async () => {
      h = await openPgGengate({ pipeline, scheduling: { maxRunningPerUser: { chat: 8, image: 1, video: 50 } } });
    });

    afterAll(async () => {
      await h?.close();
    });

    /** PgTaskCompletion with the workers it wakes after COMMIT recorded. */
    const woken: [string, number][] = [];
    const completion = () => new PgTaskCompletion(h.pool, DEFAULT_SCHEMA, h.boss, (queue, jobs) => woken.push([queue, jobs]));
    const stores = () => h.gengate.container.get(TOKENS.Stores);
    const generating = async (auth: Authenticated, body: object) => {
      const { task_id } = await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'p', ...body });
      const task = await stores().tasks.markGenerating(task_id, new Date());
      if (!task) throw new Error('not generating');
      return task;
    };
    const row = async (sql: string, values: unknown[]) => (await h.pool.query(sql, values)).rows[0] as Record<string, unknown> | undefined;
    const callbackJobs = async (taskId: string) =>
      Number((await row(`select count(*)::int as n from pgboss.job where name = 'gengate-callback' and data->>'taskId' = $1`, [taskId]))?.['n']);

    it('charges from the hold, settles it, counts the slot free and enqueues the callback', async () => {
      const auth = await h.user(10);
      const task = await generating(auth, { callback_url: 'https://hooks.example.com/done' });
      expect(await completion().succeed({ task, success: success(), chargeDescription: 'test', maxRunning: 1 })).toBe(true);
      expect(await row('select status, charged_micro::int as charged from gengate.tasks where id = $1', [task.id])).toEqual({ status: 'success', charged: CHARGE });
      expect(await row('select balance_micro::int as b, held_micro::int as h, running_image as r from gengate.account_totals where user_id = $1', [auth.userId])).toEqual({
        b: 10_000_000 - CHARGE,
        h: 0,
        r: 0,
      });
      expect(await row(`select state from gengate.holds where task_id = $1`, [task.id])).toEqual({ state: 'settled' });
      expect(await callbackJobs(task.id)).toBe(1);
      expect(await ledgerViolations(h.db.url)).toEqual([]);
    });

    it('admits the queued task that takes the freed slot, with its job, before the call returns (no fallback)', async () => {
      const auth = await h.user(10);
      const first = await generating(auth, {});
      const { task_id: queued } = await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'queued' });
      expect(await row('select admitted from gengate.tasks where id = $1', [queued])).toEqual({ admitted: false });
      const before = woken.length;
      expect(await completion().succeed({ task: first, success: success(), chargeDescription: 'test', maxRunning: 1 })).toBe(true);
      expect(woken.slice(before)).toEqual([[QUEUES.generate, 1]]);
      expect(await row('select admitted from gengate.tasks where id = $1', [queued])).toEqual({ admitted: true });
      expect(await row(`select count(*)::int as n from pgboss.job where name = 'gengate-generate' and data->>'taskId' = $1`, [queued])).toEqual({ n: 1 });
      expect(await ledgerViolations(h.db.url)).toEqual([]);
    });

    it('disarms a balance alert the charge crosses, with one mail job, in the same commit; the next charge mails no more', async () => {
      const auth = await h.user(10);
      const alert = await h.gengate.billing.createAlert(auth, { threshold: 9 });
      const task = await generating(auth, {});
      expect(await completion().succeed({ task, success: success(), chargeDescription: 'test', maxRunning: 1 })).toBe(true);
      expect(await row('select armed from gengate.balance_alerts where id = $1', [alert.id])).toEqual({ armed: false });
      expect(await row(`select count(*)::int as n from pgboss.job where name = 'gengate-alert-mail' and data->>'alertId' = $1`, [alert.id])).toEqual({ n: 1 });
      expect(await row(`select (data->>'balanceMicro')::int as b from pgboss.job where name = 'gengate-alert-mail' and data->>'alertId' = $1`, [alert.id])).toEqual({ b: 10_000_000 - CHARGE });
      const second = await generating(auth, {});
      expect(await completion().succeed({ task: second, success: success(), chargeDescription: 'test', maxRunning: 1 })).toBe(true);
      expect(await row(`select count(*)::int as n from pgboss.job where name = 'gengate-alert-mail' and data->>'alertId' = $1`, [alert.id])).toEqual({ n: 1 });

      // A grant goes through the same rule (the PostgreSQL AlertStore hands it to gengate_check_alerts):
      // still below, nothing; back at the threshold, re-armed; the next crossing mails once more.
      expect(typeof stores().alerts.checkBalance).toBe('function');
      await h.gengate.admin.grantCredits(auth.userId, 0.5); // 7.5
      expect(await row('select armed from gengate.balance_alerts where id = $1', [alert.id])).toEqual({ armed: false });
      await h.gengate.admin.grantCredits(auth.userId, 2); // 9.5
      expect(await row('select armed from gengate.balance_alerts where id = $1', [alert.id])).toEqual({ armed: true });
      const third = await generating(auth, {});
      expect(await completion().succeed({ task: third, success: success(), chargeDescription: 'test', maxRunning: 1 })).toBe(true); // 8
      expect(await row(`select count(*)::int as n from pgboss.job where name = 'gengate-alert-mail' and data->>'alertId' = $1`, [alert.id])).toEqual({ n: 2 });
    });

    it('removes the pg-boss job that produced the success in the same commit; pg-boss can then neither fail nor retry it', async () => {
      const auth = await h.user(10);
      const task = await generating(auth, {});
      const [job] = await h.boss.fetch<{ taskId: string }>(QUEUES.generate, { includeMetadata: true, batchSize: 50 }).then((jobs) => jobs.filter((j) => j.data.taskId === task.id));
      if (!job) throw new Error('the task has no active job');
      const state = async () => (await row(`select state, retry_count from pgboss.job where id = $1`, [job.id]))?.['state'];
      expect(await state()).toBe('active');
      const ended = await runAsJob({ queue: QUEUES.generate, id: job.id, attempt: job.retryCount }, () =>
        completion().succeed({ task, success: success(), chargeDescription: 'test', maxRunning: 1 }),
      );
      expect(ended).toBe(true);
      // Removed, not kept completed: the task row and the ledger are the record of a success.
      expect(await state()).toBeUndefined();
      // What pg-boss does after the handler (complete) or on a handler error / lost heartbeat (fail): fenced, so nothing.
      // pg-boss answers { affected } (its declared CommandResponse names no field).
      const affected = (r: object) => (r as { affected?: number }).affected;
      expect(affected(await h.boss.complete(QUEUES.generate, [job]))).toBe(0);
      expect(affected(await h.boss.fail(QUEUES.generate, [job], new Error('late')))).toBe(0);
      expect(await state()).toBeUndefined();
      expect(await row('select status from gengate.tasks where id = $1', [task.id])).toEqual({ status: 'success' });
    });

    it("leaves the job alone when the success is another attempt's (fenced by its attempt and queue), and ends the task", async () => {
      const auth = await h.user(10);
      const task = await generating(auth, {});
      const [job] = await h.boss.fetch<{ taskId: string }>(QUEUES.generate, { includeMetadata: true, batchSize: 50 }).then((jobs) => jobs.filter((j) => j.data.taskId === task.id));
      if (!job) throw new Error('the task has no active job');
      const later = await runAsJob({ queue: QUEUES.generate, id: job.id, attempt: job.retryCount + 1 }, () =>
        completion().succeed({ task, success: success(), chargeDescription: 'test', maxRunning: 1 }),
      );
      expect(later).toBe(true);
      expect(await row('select status from gengate.tasks where id = $1', [task.id])).toEqual({ status: 'success' });
      expect(await row('select state, retry_count from pgboss.job where id = $1', [job.id])).toEqual({ state: 'active', retry_count: job.retryCount });
    });

    it('ends a failure with the hold released, the callback job, the next queued task admitted with its job and the job completed', async () => {
      const auth = await h.user(10);
      const first = await generating(auth, { callback_url: 'https://hooks.example.com/done' });
      const { task_id: queued } = await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'queued' });
      const [job] = await h.boss.fetch<{ taskId: string }>(QUEUES.generate, { includeMetadata: true, batchSize: 50 }).then((jobs) => jobs.filter((j) => j.data.taskId === first.id));
      if (!job) throw new Error('the task has no active job');
      const ended = await runAsJob({ queue: QUEUES.generate, id: job.id, attempt: job.retryCount }, () =>
        completion().fail({ taskId: first.id, errorMessage: 'upstream said no', at: new Date(), maxRunningPerUser: { chat: 8, image: 1, video: 50 } }),
      );
      expect(ended).toMatchObject({ modelId: IMAGE });
      expect(await row('select status, error_message from gengate.tasks where id = $1', [first.id])).toEqual({ status: 'fail', error_message: 'upstream said no' });
      expect(await row(`select state from gengate.holds where task_id = $1`, [first.id])).toEqual({ state: 'released' });
      expect(await callbackJobs(first.id)).toBe(1);
      expect(await row('select admitted from gengate.tasks where id = $1', [queued])).toEqual({ admitted: true });
      expect(await row(`select count(*)::int as n from pgboss.job where name = 'gengate-generate' and data->>'taskId' = $1`, [queued])).toEqual({ n: 1 });
      expect(await row(`select state from pgboss.job where id = $1`, [job.id])).toEqual({ state: 'completed' });
      // Ending it again changes nothing.
      expect(await completion().fail({ taskId: first.id, errorMessage: 'again', at: new Date(), maxRunningPerUser: { chat: 8, image: 1, video: 50 } })).toBeNull();
      expect(await callbackJobs(first.id)).toBe(1);
      expect(await ledgerViolations(h.db.url)).toEqual([]);
    });

    it('writes nothing for a task that already ended (its callback job included)', async () => {
      const auth = await h.user(10);
      const task = await generating(auth, { callback_url: 'https://hooks.example.com/done' });
      await h.gengate.cancelTask.execute(auth, task.id);
      const before = await row('select balance_micro::int as b from gengate.account_totals where user_id = $1', [auth.userId]);
      expect(await completion().succeed({ task, success: success(), chargeDescription: 'test', maxRunning: 1 })).toBe(false);
      expect(await row('select status from gengate.tasks where id = $1', [task.id])).toEqual({ status: 'fail' });
      expect(await row('select balance_micro::int as b from gengate.account_totals where user_id = $1', [auth.userId])).toEqual(before);
      // One callback job: the cancellation's, none from the refused success.
      expect(await callbackJobs(task.id)).toBe(1);
    });

    it('is what the general path would write (same rows for the same success)', async () => {
      const auth = await h.user(10);
      const [a, b] = [await generating(auth, {}), await generating(auth, {})];
      await completion().succeed({ task: a, success: success(), chargeDescription: 'same', maxRunning: 8 });
      await new UnitOfWorkTaskCompletion(createPgStores(h.pool, h.boss, { schema: DEFAULT_SCHEMA }).unitOfWork).succeed({ task: b, success: success(), chargeDescription: 'same', maxRunning: 8 });
      const shape = async (id: string) => ({
        task: await row('select status, charged_micro, cost_micro, outputs, usage, finished_at is not null as finished from gengate.tasks where id = $1', [id]),
        tx: await row(`select credits_micro, amount_micro_usd, payment_method, status, description from gengate.transactions where task_id = $1`, [id]),
        hold: await row('select state from gengate.holds where task_id = $1', [id]),
      });
      expect(await shape(a.id)).toEqual(await shape(b.id));
    });
  });
}
