import pg from 'pg';
import { pino } from 'pino';
import { TOKENS } from '@gengate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGenerationWorker, type GenerationWorker } from '../src/jobs/generation-worker.js';
import { generationJobOptions } from '../src/postgres/pg-job-queue.js';
import { QUEUES } from '../src/postgres/boss-queues.js';
import { PgTaskCompletion } from '../src/postgres/pg-task-completion.js';
import { JobWakeups } from '../src/postgres/job-wakeups.js';
import { PgTaskIntake } from '../src/postgres/pg-task-intake.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { openPgGengate, type PgGengate } from './support/pg-gengate.js';
import { waitFor } from './support/spawn-server.js';

const IMAGE = 'sandbox.pixel-image';

/** The columns of a job row that do not depend on its id, data or the moment it was inserted. */
const SHAPE = `to_jsonb(j) - array['id', 'data', 'created_on', 'start_after', 'keep_until', 'singleton_on'] ||
  jsonb_build_object('kept_for', extract(epoch from keep_until - start_after), 'starts_at_creation', start_after = created_on)`;

describe('the jobs the money rules insert (migration 018)', () => {
  let h: PgGengate;
  let worker: GenerationWorker | undefined;

  beforeAll(async () => {
    h = await openPgGengate({ pipeline: true, scheduling: { maxRunningPerUser: { chat: 8, image: 1, video: 50 } } });
  });

  afterAll(async () => {
    await worker?.stop();
    await h?.close();
  });

  const shapeOf = async (id: string) => (await h.pool.query<{ s: unknown }>(`select ${SHAPE} as s from pgboss.job j where id = $1`, [id])).rows[0]?.s;

  it('are, column for column, the rows pg-boss send() inserts', async () => {
    const sent = async (queue: string, data: object, group?: { id: string; tier?: string }) => {
      const id = await h.boss.send(queue, data, group ? { group } : {});
      if (!id) throw new Error('send refused');
      return id;
    };
    const ours = async (queue: string, data: object, group?: { id: string; tier?: string }) => {
      const id = crypto.randomUUID();
      await h.pool.query('select gengate.gengate_enqueue_job($1, $2, $3, $4, $5, $6)', ['pgboss', queue, id, JSON.stringify(data), group?.id ?? null, group?.tier ?? null]);
      return id;
    };
    const taskId = crypto.randomUUID();
    const cases: [string, object, { id: string; tier?: string } | undefined][] = [
      [QUEUES.generate, { taskId }, generationJobOptions('sandbox').group],
      [QUEUES.generate, { taskId }, undefined],
      [QUEUES.callback, { taskId }, { id: crypto.randomUUID() }],
      [QUEUES.alertMail, { alertId: crypto.randomUUID(), balanceMicro: 5 }, undefined],
    ];
    for (const [queue, data, group] of cases) {
      const [a, b] = [await sent(queue, data, group), await ours(queue, data, group)];
      const expected = await shapeOf(a);
      expect(expected).toMatchObject({ name: queue, state: 'created', kept_for: expect.any(Number) });
      expect(await shapeOf(b)).toEqual(expected);
    }
    // Several jobs in one statement (a submission batch's, gengate_enqueue_jobs): each the same row as send()'s.
    const group = generationJobOptions('sandbox').group;
    const many = [crypto.randomUUID(), crypto.randomUUID()];
    const data = many.map(() => ({ taskId: crypto.randomUUID() }));
    await h.pool.query('select gengate.gengate_enqueue_jobs($1, $2, $3, $4, $5, $6)', ['pgboss', QUEUES.generate, many, data.map((d) => JSON.stringify(d)), many.map(() => group.id), many.map(() => group.tier ?? null)]);
    for (const [i, id] of many.entries()) {
      expect(await shapeOf(id)).toEqual(await shapeOf(await sent(QUEUES.generate, data[i] ?? {}, group)));
    }
    // And the submission's own job: the one gengate_submit_task inserted for an admitted task.
    const auth = await h.user(10);
    const { task_id } = await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'p' });
    const { rows } = await h.pool.query<{ id: string }>(`select id from pgboss.job where name = $1 and data->>'taskId' = $2`, [QUEUES.generate, task_id]);
    expect(rows).toHaveLength(1);
    const reference = await sent(QUEUES.generate, { taskId: task_id }, generationJobOptions('sandbox').group);
    expect(await shapeOf(rows[0]?.id ?? '')).toEqual(await shapeOf(reference));
    await h.pool.query(`delete from pgboss.job where id = any($1::uuid[])`, [[rows[0]?.id, reference]]);
    await h.gengate.failTask.execute(task_id, 'cleared');
  });

  it('a queued task admitted by a success gets a job a worker picks up; every generation job ends with its task (removed by the success)', { timeout: 120_000 }, async () => {
    await h.pool.query(`delete from pgboss.job where name = $1`, [QUEUES.generate]);
    const auth = await h.user(10);
    const [a, b] = [
      await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'first' }),
      await h.gengate.submitRun.execute(auth, IMAGE, { prompt: 'second' }),
    ];
    const admitted = async (id: string) => (await h.pool.query<{ admitted: boolean }>('select admitted from gengate.tasks where id = $1', [id])).rows[0]?.admitted;
    expect([await admitted(a.task_id), await admitted(b.task_id)]).toEqual([true, false]);
    worker = await startGenerationWorker(h.boss, h.gengate, { concurrency: 2, logger: pino({ level: 'silent' }) });
    const statuses = await waitFor(
      async () => {
        const { rows } = await h.pool.query<{ id: string; status: string }>('select id, status from gengate.tasks where id = any($1::uuid[])', [[a.task_id, b.task_id]]);
        return rows.every((r) => r.status === 'success') ? rows : null;
      },
      { timeoutMs: 60_000, intervalMs: 20, what: 'both tasks to succeed' },
    );
    expect(statuses).toHaveLength(2);
    // Each success removed its job in its own commit: none is left to retry or to fail.
    const { rows: left } = await h.pool.query<{ state: string }>(`select state from pgboss.job where name = $1 and data->>'taskId' = any($2::text[])`, [QUEUES.generate, [a.task_id, b.task_id]]);
    expect(left).toEqual([]);
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });

  it('takes one statement, its own transaction (no BEGIN or COMMIT), for a submission and a failure; a success admitting a queued task two', async () => {
    await worker?.stop(); // nothing else touches these tasks
    worker = undefined;
    // A pool whose clients count what they are sent (pipelined, as the host's).
    const sent: string[] = [];
    const pool = new pg.Pool({ connectionString: h.db.url, max: 2, pipeline: true });
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (...args: unknown[]) => {
        // A named (prepared) statement is sent as a config object: its text is what counts.
        const first = args[0];
        const text = typeof first === 'string' ? first : typeof first === 'object' && first !== null && 'text' in first && typeof first.text === 'string' ? first.text : 'config';
        sent.push(text.trim().split(/\s+/).slice(0, 2).join(' '));
        return query(...args);
      };
    });
    const woken: [string, number][] = [];
    const wakeups = new JobWakeups(pool);
    const intake = new PgTaskIntake(pool, DEFAULT_SCHEMA, h.boss, (queue, jobs) => wakeups.wake(queue, jobs));
    const completion = new PgTaskCompletion(pool, DEFAULT_SCHEMA, h.boss, (queue, jobs) => woken.push([queue, jobs]));
    try {
      const auth = await h.user(10);
      const submit = async () => {
        const id = crypto.randomUUID();
        const task = { id, userId: auth.userId, apiKeyId: auth.apiKeyId, modelId: IMAGE, modality: 'image' as const, request: { prompt: 'p' }, callbackUrl: null, quotedMicro: 2_000_000, quotedCostMicro: 20_000 };
        expect(await intake.accept({ task, maxRunning: 1, maxQueued: 5, providerId: 'sandbox', at: new Date(), idempotency: null })).toMatchObject({ outcome: 'accepted' });
        return task;
      };
      sent.length = 0;
      const first = await submit();
      expect(sent).toEqual(['select gengate.gengate_submit_task($1,', 'select pg_notify($1,']);
      const queued = await submit();
      await h.gengate.container.get(TOKENS.Stores).tasks.markGenerating(first.id, new Date());
      sent.length = 0;
      const ended = await completion.succeed({
        task: first,
        success: { outputs: [], warnings: [], chargedMicro: 1_000_000, costMicro: 10_000, reportedCostMicro: null, usage: {}, metadata: {}, at: new Date() },
        chargeDescription: 'counted',
        maxRunning: 1,
      });
      expect(ended).toBe(true);
      // Since migration 020 the end does not lock the account row; the queued task it found is admitted by
      // a second statement right after its commit (gengate_admit_after_end, with the lock).
      expect(sent).toEqual(['select gengate.gengate_finish_success($1,', 'select gengate.gengate_admit_after_end($1,']);
      expect(woken).toEqual([[QUEUES.generate, 1]]);
      sent.length = 0;
      expect(await completion.fail({ taskId: queued.id, errorMessage: 'no', at: new Date(), maxRunningPerUser: { chat: 8, image: 1, video: 50 } })).not.toBeNull();
      expect(sent).toEqual(['select gengate.gengate_finish_fail($1,']);
    } finally {
      await pool.end();
    }
  });
});
