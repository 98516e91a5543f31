import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgKeyStore, keySql } from '../src/postgres/pg-key-store.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { openPgGengate, type PgGengate } from './support/pg-gengate.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';

const IMAGE = 'sandbox.pixel-image';

for (const pipeline of [true, false]) {
  describe(`a submission written by PgTaskIntake (${pipeline ? 'pipelined' : 'one statement at a time'})`, () => {
    let h: PgGengate;

    beforeAll(async () => {
      h = await openPgGengate({ pipeline, scheduling: { maxRunningPerUser: { chat: 8, image: 2, video: 50 }, maxQueuedPerUser: 1 } });
    });

    afterAll(async () => {
      await h?.close();
    });

    const jobsOf = async (taskId: string) =>
      (await h.pool.query<{ n: number }>(`select count(*)::int as n from pgboss.job where name = 'gengate-generate' and data->>'taskId' = $1`, [taskId])).rows[0]?.n;
    /**
     * Waits until this many sessions of this file's database wait for a lock with a statement containing
     * `text` (pg_stat_activity shows the whole server, where other files submit tasks at the same time).
     */
    const lockWaiters = async (text: string, count: number) => {
      for (const until = Date.now() + 10_000; ; ) {
        const { rowCount } = await h.pool.query(
          `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like $1 and pid <> pg_backend_pid()`,
          [`%${text}%`],
        );
        if ((rowCount ?? 0) >= count) return;
        if (Date.now() > until) throw new Error(`never saw ${count} session(s) waiting in "${text}"`);
        await new Promise((r) => setImmediate(r));
      }
    };
    const heldOf = async (userId: string) => (await h.pool.query<{ held: string }>('select held_micro as held from gengate.account_totals where user_id = $1', [userId])).rows[0]?.held;

    it('admits into a free running slot with its job, queues behind taken slots without one, refuses past the queue', async () => {
      const auth = await h.user(100);
      const [a, b, c] = [
        await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'one' }),
        await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'two' }),
        await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'three' }),
      ];
      const admitted = async (id: string) => (await h.pool.query<{ admitted: boolean }>('select admitted from gengate.tasks where id = $1', [id])).rows[0]?.admitted;
      expect([await admitted(a.task_id), await admitted(b.task_id), await admitted(c.task_id)]).toEqual([true, true, false]);
      expect([await jobsOf(a.task_id), await jobsOf(b.task_id), await jobsOf(c.task_id)]).toEqual([1, 1, 0]);
      await expect(h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'four' })).rejects.toMatchObject({ type: 'too_many_tasks' });
      expect(await heldOf(auth.userId)).toBe('6000000'); // three images at 2 credits
      expect((await h.pool.query(`select 1 from gengate.tasks where user_id = $1`, [auth.userId])).rowCount).toBe(3);
    });

    it('refuses without credits and leaves no task, hold or job', async () => {
      const auth = await h.user(0.5);
      await expect(h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'broke' })).rejects.toMatchObject({ type: 'insufficient_credits' });
      expect((await h.pool.query(`select 1 from gengate.tasks where user_id = $1`, [auth.userId])).rowCount).toBe(0);
      expect((await h.pool.query(`select 1 from gengate.holds where user_id = $1`, [auth.userId])).rowCount).toBe(0);
      expect((await h.pool.query(`select 1 from pgboss.job j left join gengate.tasks t on t.id = (j.data->>'taskId')::uuid where j.name = 'gengate-generate' and t.id is null`)).rowCount).toBe(0);
    });

    it('refuses a submission that waited for the account while a revocation of its key committed', async () => {
      const auth = await h.user(100);
      const revoking = await h.pool.connect();
      try {
        await revoking.query('begin');
        expect(await new PgKeyStore(revoking, keySql(DEFAULT_SCHEMA)).revoke(auth.apiKeyId, auth.userId)).toBe(true);
        const submission = h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'in flight' });
        const settled = submission.then(() => 'accepted', () => 'refused');
        // The submission waits for the account row the revocation locked.
        await lockWaiters('gengate_submit_task', 1);
        await revoking.query('commit');
        await expect(submission).rejects.toMatchObject({ type: 'authentication_failed' });
        expect(await settled).toBe('refused');
      } finally {
        revoking.release();
      }
      expect((await h.pool.query(`select 1 from gengate.tasks where user_id = $1`, [auth.userId])).rowCount).toBe(0);
      expect(await heldOf(auth.userId)).toBe('0');
    });

    it('makes a revocation wait for a submission that holds the account, which then commits first', async () => {
      const auth = await h.user(100);
      const holding = await h.pool.connect();
      try {
        await holding.query('begin');
        await holding.query('select 1 from gengate.accounts where user_id = $1 for update', [auth.userId]);
        const submission = h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'first' });
        await lockWaiters('gengate_submit_task', 1);
        const revocation = h.gengate.keys.revoke(auth, auth.apiKeyId);
        // Both wait, the submission first in line (a revocation arriving as the row frees may go first:
        // then the submission is refused, as the test above shows).
        await lockWaiters('insert into gengate.accounts', 1);
        await holding.query('commit');
        const accepted = await submission;
        await revocation;
        // It committed before the revocation, which then ended it as one of the key's waiting tasks.
        expect((await h.pool.query(`select status from gengate.tasks where id = $1`, [accepted.task_id])).rows[0]).toEqual({ status: 'fail' });
      } finally {
        holding.release();
      }
      await expect(h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'after' })).rejects.toMatchObject({ type: 'authentication_failed' });
      expect(await ledgerViolations(h.db.url)).toEqual([]);
    });
  });
}
