import { TOKENS, type Authenticated, type TaskRecord } from '@gengate/core/internal';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAsJob } from '../src/postgres/current-job.js';
import { QUEUES } from '../src/postgres/boss-queues.js';
import { PgTaskCompletion } from '../src/postgres/pg-task-completion.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { CHARGE, IMAGE, imageSuccess as success } from './support/image-success.js';
import { openPgGengate, type PgGengate } from './support/pg-gengate.js';


/** The worker's statements that end or claim tasks in one event-loop turn: batched, each outcome its own. */
describe('the ends and claims of one turn share one statement (PostgreSQL)', () => {
  let h: PgGengate;

  beforeAll(async () => {
    h = await openPgGengate({ pipeline: true, scheduling: { maxRunningPerUser: { chat: 8, image: 8, video: 8 } } });
  });

  afterAll(async () => {
    await h?.close();
  });

  const stores = () => h.gengate.container.get(TOKENS.Stores);
  const submit = async (auth: Authenticated, body: object = {}) => (await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'p', ...body })).task_id;
  const row = async (sql: string, values: unknown[]) => (await h.pool.query(sql, values)).rows[0] as Record<string, unknown> | undefined;

  it('claims the tasks of one turn in one statement, each answered its own row; a task claimed twice counts two attempts; an ended one is null', async () => {
    const auth = await h.user(20);
    const [a, b, c] = [await submit(auth), await submit(auth), await submit(auth)];
    await h.gengate.cancelTask.execute(auth, c);
    const query = vi.spyOn(h.pool, 'query');
    const at = new Date();
    const claimed = await Promise.all([a, b, a, c].map((id) => stores().tasks.markGenerating(id, at)));
    // One statement for the batch, one for the second claim of `a`.
    expect(query).toHaveBeenCalledTimes(2);
    query.mockRestore();
    expect(claimed.map((t) => t?.id ?? null)).toEqual([a, b, a, null]);
    expect(claimed.map((t) => t?.status ?? null)).toEqual(['generating', 'generating', 'generating', null]);
    expect(claimed.map((t) => t?.attempts ?? null)).toEqual([1, 1, 2, null]);
    expect(await row('select attempts, started_at is not null as started from gengate.tasks where id = $1', [a])).toEqual({ attempts: 2, started: true });
  });

  it('ends the successes of one turn, of several users, in one statement: each charged, its job removed, its callback enqueued', async () => {
    const users = [await h.user(10), await h.user(10), await h.user(10)];
    // One user on the locked path (a balance alert), one with a callback.
    const alert = await h.gengate.billing.createAlert(users[0] as Authenticated, { threshold: 9 });
    const tasks: TaskRecord[] = [];
    for (const [i, u] of users.entries()) {
      for (let k = 0; k < 2; k++) {
        const id = await submit(u, i === 1 ? { callback_url: 'https://hooks.example.com/done' } : {});
        const t = await stores().tasks.markGenerating(id, new Date());
        if (!t) throw new Error('not generating');
        tasks.push(t);
      }
    }
    const ids = tasks.map((t) => t.id);
    const jobs = (await h.boss.fetch<{ taskId: string }>(QUEUES.generate, { includeMetadata: true, batchSize: 100 })).filter((j) => ids.includes(j.data.taskId));
    expect(jobs).toHaveLength(tasks.length);
    const completion = new PgTaskCompletion(h.pool, DEFAULT_SCHEMA, h.boss, () => undefined);
    const connect = vi.spyOn(h.pool, 'connect');
    // The same task twice in the turn (a webhook beside a status check): the second finds it ended.
    // Every other task's result is kept inline (its own bytes, of its own length): each row gets its own.
    const inline = (i: number) => (i % 2 === 0 ? new TextEncoder().encode(`answer ${i} ${'x'.repeat(i)}`) : null);
    const ended = await Promise.all([
      ...tasks.map((task, i) => {
        const job = jobs.find((j) => j.data.taskId === task.id);
        if (!job) throw new Error('no job');
        const body = inline(i);
        const s = body ? { ...success(), outputs: [{ key: `${task.id}/output-0.txt`, mediaType: 'text/plain', bytes: body.byteLength, inline: true as const }], outputBodies: [body] } : success();
        return runAsJob({ queue: QUEUES.generate, id: job.id, attempt: job.retryCount }, () => completion.succeed({ task, success: s, chargeDescription: 'batch', maxRunning: 8 }));
      }),
      completion.succeed({ task: tasks[0] as TaskRecord, success: success(), chargeDescription: 'batch', maxRunning: 8 }),
    ]);
    expect(connect).toHaveBeenCalledTimes(1);
    connect.mockRestore();
    expect(ended).toEqual([true, true, true, true, true, true, false]);
    for (const [i, task] of tasks.entries()) {
      const bodies = (await row('select output_bodies from gengate.tasks where id = $1', [task.id]))?.['output_bodies'] as Buffer[] | null;
      expect(bodies?.map((b) => b.toString()) ?? null, `task ${i}`).toEqual(inline(i) ? [`answer ${i} ${'x'.repeat(i)}`] : null);
    }
    for (const u of users) {
      expect(await row('select balance_micro::int as b, held_micro::int as h, running_image as r from gengate.account_totals where user_id = $1', [u.userId])).toEqual({
        b: 10_000_000 - 2 * CHARGE,
        h: 0,
        r: 0,
      });
    }
    expect(await row('select count(*)::int as n from pgboss.job where id = any($1::uuid[])', [jobs.map((j) => j.id)])).toEqual({ n: 0 });
    const callbacks = await row(`select count(*)::int as n from pgboss.job where name = 'gengate-callback' and data->>'taskId' = any($1)`, [ids]);
    expect(callbacks).toEqual({ n: 2 });
    expect(await row('select armed from gengate.balance_alerts where id = $1', [alert.id])).toEqual({ armed: false });
    expect(await row(`select count(*)::int as n from gengate.transactions where task_id = any($1)`, [ids])).toEqual({ n: 6 });
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });

  it('admits the queued tasks its ends free slots for: once per user and modality, on the locked path and off it', async () => {
    const admitted = async (id: string) => (await row('select admitted from gengate.tasks where id = $1', [id]))?.['admitted'];
    for (const locked of [false, true]) {
      const auth = await h.user(20);
      if (locked) await h.gengate.billing.createAlert(auth, { threshold: 1 });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await submit(auth));
      const waiting = ids.slice(8);
      for (const id of waiting) expect(await admitted(id)).toBe(false);
      const running = await Promise.all(ids.slice(0, 2).map(async (id) => (await stores().tasks.markGenerating(id, new Date())) as TaskRecord));
      const query = vi.spyOn(h.pool, 'query');
      const completion = new PgTaskCompletion(h.pool, DEFAULT_SCHEMA, h.boss, () => undefined);
      expect(await Promise.all(running.map((task) => completion.succeed({ task, success: success(), chargeDescription: 'batch', maxRunning: 8 })))).toEqual([true, true]);
      const admitAfter = query.mock.calls.filter(([q]) => String(typeof q === 'string' ? q : (q as { text: string }).text).includes('gengate_admit_after_end'));
      query.mockRestore();
      // Off the account row: one admission after the commit for the user's image tasks; locked: inside it.
      expect(admitAfter, locked ? 'locked' : 'unlocked').toHaveLength(locked ? 0 : 1);
      for (const id of waiting) expect(await admitted(id), locked ? 'locked' : 'unlocked').toBe(true);
      const jobs = await row(`select count(*)::int as n from pgboss.job where name = 'gengate-generate' and data->>'taskId' = any($1)`, [waiting]);
      expect(jobs).toEqual({ n: 2 });
      expect(await row('select running_image as r, queued_image as q from gengate.account_totals where user_id = $1', [auth.userId])).toEqual({ r: 8, q: 0 });
    }
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });

  it('when one end of the batch raises, the batch rolls back and each end runs alone: only that one fails', async () => {
    const auth = await h.user(10);
    const withCallback = await stores().tasks.markGenerating(await submit(auth, { callback_url: 'https://hooks.example.com/done' }), new Date());
    const plain = await stores().tasks.markGenerating(await submit(auth), new Date());
    if (!withCallback || !plain) throw new Error('not generating');
    // No job queue in this completion: the callback's job cannot be enqueued (GGNJQ), the plain success can end.
    const completion = new PgTaskCompletion(h.pool, DEFAULT_SCHEMA, null, () => undefined);
    const [a, b] = await Promise.allSettled([
      completion.succeed({ task: withCallback, success: success(), chargeDescription: 'batch', maxRunning: 8 }),
      completion.succeed({ task: plain, success: success(), chargeDescription: 'batch', maxRunning: 8 }),
    ]);
    expect(a).toMatchObject({ status: 'rejected', reason: { code: 'GGNJQ' } });
    expect(b).toEqual({ status: 'fulfilled', value: true });
    expect(await row('select status from gengate.tasks where id = $1', [withCallback.id])).toEqual({ status: 'generating' });
    expect(await row('select status from gengate.tasks where id = $1', [plain.id])).toEqual({ status: 'success' });
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });
});
