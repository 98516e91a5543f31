import { randomUUID } from 'node:crypto';
import type { EndedTask, Modality, TaskCompletion, TaskFailureCompletion, TaskSuccessCompletion } from '@gengate/core';
import { inject, injectable, optional } from 'inversify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { currentJob, jobSettled } from './current-job.js';
import { BOSS_SCHEMA, QUEUES } from './boss-queues.js';
import { HOST_TOKENS } from '../host-tokens.js';
import { PG_TOKENS } from './postgres-tokens.js';
import { checkSchemaName } from './schema.js';
import { SuccessBatch } from './pg-success-batch.js';
import { outputBodiesParam } from './output-bodies.js';
import { pipelinedStatement } from './statement-pipeline.js';

const failSql = (schema: string) => `select ${schema}.gengate_finish_fail($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) as r`;
const admitAfterSql = (schema: string) => `select ${schema}.gengate_admit_after_end($1, $2, $3, $4) as n`;

/** What gengate_finish_success / gengate_finish_fail answer (migrations 018 and 020). */
interface Finished {
  readonly ended: boolean;
  /** 020: an end that did not lock the account row found a queued task of its user: admit it now. */
  readonly admitAfter?: boolean;
  readonly userId?: string;
  readonly modality?: Modality;
  readonly generate?: number;
  readonly callback?: number;
  readonly alertMail?: number;
  readonly modelId?: string;
  readonly startedAt?: string | null;
}

/**
 * The TaskCompletion on PostgreSQL: one SQL function call, its own transaction (no BEGIN and COMMIT: a
 * statement outside a transaction block commits or rolls back whole), in one round trip; the successes of
 * one event-loop turn share that statement (SuccessBatch: one call per task, in user order). The functions
 * (migration 018) hold every rule of a task's end: the charge (never above the hold) and settlement, or
 * the release; balance alerts with their mail job; the callback job; the admission of the user's next
 * queued task with its generation job; and the pg-boss job running this end (currentJob), ended in the same
 * commit: removed by a success (gengate_remove_job's statement), completed by a failure. Workers of the jobs added are woken after the commit.
 *
 * Since migration 020 an end does not wait on its user's account row (what it changes there is appended to
 * account_pending); when it found a queued task of its user, the queue is admitted by a second statement
 * right after the commit (gengate_admit_after_end, which takes the account lock), before the call returns.
 */
@injectable()
export class PgTaskCompletion implements TaskCompletion {
  /** The successes of one event-loop turn, ended by one statement (SuccessBatch). */
  private readonly successes: SuccessBatch<Finished>;
  private readonly failure: string;
  private readonly admitAfterQuery: string;

  constructor(
    @inject(HOST_TOKENS.Pool) private readonly pool: pg.Pool,
    /** gengate's schema (the name runMigrations used). */
    @inject(HOST_TOKENS.Schema) schema: string,
    /** The job queue; null in a process that enqueues nothing (a job the end needs then raises). */
    @inject(HOST_TOKENS.Boss) private readonly boss: PgBoss | null,
    /** Wakes `jobs` workers of `queue` once the commit is done (JobWakeups). */
    @inject(PG_TOKENS.WakeJobs) private readonly wake: (queue: string, jobs: number) => void,
    @inject(PG_TOKENS.BossSchema) @optional() private readonly bossSchema: string = BOSS_SCHEMA,
  ) {
    const s = checkSchemaName(schema);
    this.successes = new SuccessBatch<Finished>(pool, s, boss ? bossSchema : null);
    this.failure = failSql(s);
    this.admitAfterQuery = admitAfterSql(s);
  }

  async succeed(c: TaskSuccessCompletion): Promise<boolean> {
    const { task, success } = c;
    const job = currentJob();
    const outcome = await this.successes.end({
      taskId: task.id,
      userId: task.userId,
      callback: task.callbackUrl !== null,
      args: [
        task.id,
        JSON.stringify(success.outputs),
        JSON.stringify(success.warnings),
        success.chargedMicro,
        success.costMicro,
        success.reportedCostMicro,
        JSON.stringify(success.usage),
        JSON.stringify(success.metadata),
        success.at,
        c.chargeDescription,
        randomUUID(),
        c.maxRunning,
        job?.queue ?? null,
        job?.id ?? null,
        job?.attempt ?? null,
        outputBodiesParam(success.outputBodies),
      ],
    });
    if ('error' in outcome) throw outcome.error;
    // Committed: gengate_finish_success completed the running job (whatever happened to the task).
    if (job) jobSettled();
    const done = outcome.ok;
    // The callback's wake-up went in the same write right after the commit (the common case needs no other).
    this.wakeFor(done, true);
    await this.admitAfter(done, c.maxRunning);
    return done.ended;
  }

  async fail(c: TaskFailureCompletion): Promise<EndedTask | null> {
    const job = currentJob();
    const m = c.maxRunningPerUser;
    const res = await pipelinedStatement<{ r: Finished }>(this.pool, {
      text: this.failure,
      values: [
        c.taskId,
        c.errorMessage,
        c.at,
        c.metadata === undefined ? null : JSON.stringify(c.metadata),
        m.chat,
        m.image,
        m.video,
        this.boss ? this.bossSchema : null,
        job?.queue ?? null,
        job?.id ?? null,
        job?.attempt ?? null,
      ],
    });
    if (job) jobSettled();
    const done = res.rows[0]?.r ?? { ended: false };
    this.wakeFor(done, false);
    if (done.modality) await this.admitAfter(done, m[done.modality]);
    if (!done.ended || done.modelId === undefined) return null;
    return { modelId: done.modelId, startedAt: done.startedAt ? new Date(done.startedAt) : null };
  }

  private async admitAfter(done: Finished, maxRunning: number): Promise<void> {
    if (!done.ended || !done.admitAfter || !done.userId || !done.modality) return;
    const { rows } = await this.pool.query<{ n: number }>(this.admitAfterQuery, [done.userId, done.modality, maxRunning, this.boss ? this.bossSchema : null]);
    const n = rows[0]?.n ?? 0;
    if (n > 0) this.wake(QUEUES.generate, n);
  }

  private wakeFor(done: Finished, callbackWoken: boolean): void {
    if (!done.ended) return;
    if (done.generate) this.wake(QUEUES.generate, done.generate);
    if (done.alertMail) this.wake(QUEUES.alertMail, done.alertMail);
    if (done.callback && !callbackWoken) this.wake(QUEUES.callback, done.callback);
  }
}
