import { TOKENS, type Authenticated } from '@gengate/core/internal';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgTaskCompletion } from '../src/postgres/pg-task-completion.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { CHARGE, IMAGE, imageSuccess as success } from './support/image-success.js';
import { openPgGengate, type PgGengate } from './support/pg-gengate.js';


/**
 * Migration 020: a task's end does not wait on its user's account row (which every submission of that
 * user locks until its commit); what it changes there is appended to account_pending and folded by the
 * next holder of the lock. These are the PostgreSQL-only consequences; the money contract suite and the
 * differential test show the results equal the memory implementation's.
 */
describe('a task end off the account row (migration 020)', () => {
  let h: PgGengate;

  beforeAll(async () => {
    h = await openPgGengate({ scheduling: { maxRunningPerUser: { chat: 8, image: 1, video: 50 } } });
  });

  afterAll(async () => {
    await h?.close();
  });

  const completion = () => new PgTaskCompletion(h.pool, DEFAULT_SCHEMA, h.boss, () => undefined);
  const stores = () => h.gengate.container.get(TOKENS.Stores);
  const generating = async (auth: Authenticated) => {
    const { task_id } = await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'p' });
    const task = await stores().tasks.markGenerating(task_id, new Date());
    if (!task) throw new Error('not generating');
    return task;
  };
  const row = async (sql: string, values: unknown[]) => (await h.pool.query(sql, values)).rows[0] as Record<string, unknown> | undefined;
  const pendingRows = async (userId: string) => Number((await row('select count(*)::int as n from gengate.account_pending where user_id = $1', [userId]))?.['n']);
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

  it('settles while another transaction holds the account row, and the next submission folds the settlement in', async () => {
    const auth = await h.user(10);
    const task = await generating(auth);
    const holding = await h.pool.connect();
    // Had the end waited on the row, it would fail with a lock timeout instead of returning.
    const impatient = new pg.Pool({ connectionString: h.db.url, max: 2, options: '-c lock_timeout=2000' });
    try {
      await holding.query('begin');
      await holding.query('select 1 from gengate.accounts where user_id = $1 for update', [auth.userId]);
      const ends = new PgTaskCompletion(impatient, DEFAULT_SCHEMA, h.boss, () => undefined);
      expect(await ends.succeed({ task, success: success(), chargeDescription: 'test', maxRunning: 1 })).toBe(true);
      await holding.query('commit');
    } finally {
      holding.release();
      await impatient.end();
    }
    // The account as every reader sees it is exact at once; the row itself is folded by the next submission.
    expect(await row('select balance_micro::int as b, held_micro::int as h, running_image as r from gengate.account_totals where user_id = $1', [auth.userId])).toEqual({
      b: 10_000_000 - CHARGE,
      h: 0,
      r: 0,
    });
    expect(await pendingRows(auth.userId)).toBe(1); // one row: the charge, the hold settled and the slot freed
    expect(await ledgerViolations(h.db.url)).toEqual([]);
    await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'next' });
    expect(await pendingRows(auth.userId)).toBe(0);
    expect(await row('select balance_micro::int as b, held_micro::int as h, running_image as r from gengate.accounts where user_id = $1', [auth.userId])).toEqual({
      b: 10_000_000 - CHARGE,
      h: 2_000_000,
      r: 1,
    });
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });

  it('makes a submission at the running limit wait for an end in flight, and admits it into the freed slot instead of queueing it', async () => {
    const auth = await h.user(10);
    const first = await generating(auth);
    const ending = await h.pool.connect();
    try {
      await ending.query('begin');
      // The end, uncommitted: the slot is being freed.
      await ending.query(
        `select gengate.gengate_finish_fail($1, 'upstream failed', now(), null, 8, 1, 50, null, null, null, null) as r`,
        [first.id],
      );
      const submission = h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'second' });
      await lockWaiters('gengate_submit_task', 1);
      await ending.query('commit');
      const { task_id } = await submission;
      expect(await row('select admitted from gengate.tasks where id = $1', [task_id])).toEqual({ admitted: true });
    } finally {
      ending.release();
    }
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });

  it('admits a queued task when the end that frees its slot did not lock the account row', async () => {
    const auth = await h.user(10);
    const first = await generating(auth);
    const { task_id: queued } = await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'queued' });
    expect(await row('select admitted from gengate.tasks where id = $1', [queued])).toEqual({ admitted: false });
    expect(await completion().succeed({ task: first, success: success(), chargeDescription: 'test', maxRunning: 1 })).toBe(true);
    expect(await row('select admitted from gengate.tasks where id = $1', [queued])).toEqual({ admitted: true });
    expect(await row(`select count(*)::int as n from pgboss.job where name = 'gengate-generate' and data->>'taskId' = $1`, [queued])).toEqual({ n: 1 });
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });
});
