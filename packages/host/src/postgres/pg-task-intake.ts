import { randomUUID } from 'node:crypto';
import type { JsonObject, TaskIntake, TaskIntakeRequest, TaskIntakeResult } from '@gengate/core';
import { inject, injectable, optional } from 'inversify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { jobReadyStatement } from './job-wakeups.js';
import { BOSS_SCHEMA, QUEUES } from './boss-queues.js';
import { HOST_TOKENS } from '../host-tokens.js';
import { PG_TOKENS } from './postgres-tokens.js';
import { prepared, preparedName, type NamedStatement } from './prepared-statements.js';
import { checkSchemaName } from './schema.js';
import { isRefusal, pipelinedStatement, type PipelinedStatement } from './statement-pipeline.js';
import { TurnBatch } from './turn-batch.js';

const submitSql = (schema: string) => `select ${schema}.gengate_submit_task($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) as admitted`;
/** The same with the submission's trace context ($20) kept on the task (migration 024): only when tracing is on. */
const submitTracedSql = (schema: string) => `select ${schema}.gengate_submit_task_traced($20, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) as admitted`;
/** Several submissions of one user in one statement (functions/submit-tasks.ts): one row per item, in order. */
const submitManySql = (schema: string) => `select admitted, refusal_code, refusal_detail from ${schema}.gengate_submit_tasks($1, $2, $3) order by ord`;

/**
 * The most submissions of one user in one gengate_submit_tasks call: each item is a subtransaction, and a
 * backend caches 64 subtransaction ids (beyond, every visibility check looks them up in pg_subtrans).
 */
export const MAX_SUBMISSION_BATCH = 32;

interface Submission {
  readonly r: TaskIntakeRequest;
  readonly jobId: string | null;
}

/** One item's answer in a batch: its result, or the error only its caller gets (an unknown refusal). */
type BatchAnswer = { readonly result: TaskIntakeResult } | { readonly error: unknown };

/**
 * The TaskIntake on PostgreSQL: one statement, gengate_submit_task(), its own transaction (no BEGIN and
 * COMMIT: a statement outside a transaction block commits or rolls back whole), followed in the same
 * write by the wake-up of a worker (one network round trip with a pipelining pool). The function (functions/submit-task.ts) holds every rule of a submission: the
 * idempotency window, the hold, the key's revocation check, admission or the user's queue, the task, its
 * generation job (inserted by the function itself, only when the task is admitted) and the idempotency
 * record; it raises to refuse, which rolls back all it wrote. The user's account row is locked only while
 * the server runs it. The API key is re-checked there, after that lock: a key revoked in any process
 * (a revoke takes the same lock) is refused here even when the request was authenticated from a cache.
 *
 * Group commit: the untraced submissions of ONE user go to the database as one statement,
 * gengate_submit_tasks() (functions/submit-tasks.ts): one lock of the account row, one commit, one round
 * trip and one wake-up for up to MAX_SUBMISSION_BATCH of them, each item being gengate_submit_task() in a
 * subtransaction, answered as if the items had been sent one after another in arrival order. A batch is
 * what one user submitted in one event-loop turn, or while that user's previous batch was in the database
 * (TurnBatch keyed by user, one run in flight per user): a lone submission still leaves at the end of its
 * turn, as the single statement above. Batches are per user only: each locks its user's account row
 * first, so two batches never wait for each other's rows in opposite orders.
 */
@injectable()
export class PgTaskIntake implements TaskIntake {
  private readonly submit: NamedStatement;
  private readonly submitTraced: NamedStatement;
  private readonly submitMany: NamedStatement;
  private readonly batch = new TurnBatch<Submission, BatchAnswer>((subs) => this.acceptMany(subs), {
    max: MAX_SUBMISSION_BATCH,
    keyOf: (sub) => sub.r.task.userId,
    // One batch of a user in the database at a time: what arrives meanwhile makes the next batch (they
    // would wait for the account row anyway), so a burst costs one commit per batch, not per submission.
    inFlightPerKey: 1,
  });

  constructor(
    @inject(HOST_TOKENS.Pool) private readonly pool: pg.Pool,
    /** gengate's schema (the name runMigrations used). */
    @inject(HOST_TOKENS.Schema) schema: string,
    /** The job queue; null in a process that enqueues nothing (then only inline calls are accepted). */
    @inject(HOST_TOKENS.Boss) private readonly boss: PgBoss | null,
    /**
     * Wakes a queue's workers after a commit (the process's JobWakeups): a batch's answer tells how many
     * items were admitted with a job, so its NOTIFY is sent once that answer is in (one per event-loop turn
     * for every batch that ended in it), not pipelined behind the batch with a query counting its admitted
     * tasks again (h-sql measured that count at 400-740 µs of PostgreSQL per batch).
     */
    @inject(PG_TOKENS.WakeJobs) private readonly wakeJobs: (queue: string, jobs: number) => void,
    @inject(PG_TOKENS.BossSchema) @optional() private readonly bossSchema: string = BOSS_SCHEMA,
  ) {
    const s = checkSchemaName(schema);
    this.submit = prepared('gengate_submit', submitSql(s));
    this.submitTraced = prepared('gengate_submit_traced', submitTracedSql(s));
    this.submitMany = prepared('gengate_submit_many', submitManySql(s));
    const wake = (taskId: string) => jobReadyStatement(QUEUES.generate, { sql: `exists (select 1 from ${s}.tasks where id = $3 and admitted)`, value: taskId });
    const wakeName = preparedName('gengate_wake', wake('').text);
    this.wakeIfAdmitted = (taskId) => ({ ...wake(taskId), name: wakeName });
  }

  /**
   * Sent in the same write after COMMIT: wakes a generation worker when the task was admitted (a queued
   * task has no job yet). The submission and the wake-up are named prepared statements: each pooled
   * connection parses and plans them once, not at every submission (PostgreSQL shares the host's cores).
   */
  private readonly wakeIfAdmitted: (taskId: string) => PipelinedStatement;

  async accept(r: TaskIntakeRequest): Promise<TaskIntakeResult> {
    if (!this.boss && r.inline !== true) throw new Error('this process was started without a job queue');
    // An inline call (run by the API process) has no job: gengate_submit_task takes a null job id.
    const jobId = r.inline === true ? null : randomUUID();
    // A traced submission keeps its own statement (gengate_submit_task_traced); tracing is off on the hot path.
    if (r.traceParent !== undefined) return this.acceptOne({ r, jobId });
    const answer = await this.batch.call({ r, jobId });
    if ('error' in answer) throw answer.error;
    return answer.result;
  }

  private async acceptOne({ r, jobId }: Submission): Promise<TaskIntakeResult> {
    try {
      const res = await pipelinedStatement<{ admitted: boolean }>(
        this.pool,
        r.traceParent === undefined ? { ...this.submit, values: this.parameters(r, jobId) } : { ...this.submitTraced, values: [...this.parameters(r, jobId), r.traceParent] },
        r.inline === true ? undefined : this.wakeIfAdmitted(r.task.id),
      );
      return { outcome: 'accepted', admitted: res.rows[0]?.admitted === true };
    } catch (err) {
      const refusal = isRefusal(err) ? refusalOf(err) : null;
      if (refusal) return refusal;
      throw err;
    }
  }

  /**
   * One batch of one user's submissions: a lone one as its own statement, several in one
   * gengate_submit_tasks() call, then one wake-up for the ones it admitted with a job (JobWakeups).
   * An error that is no refusal fails the statement, so every caller in it gets that error.
   */
  private async acceptMany(subs: readonly Submission[]): Promise<BatchAnswer[]> {
    const first = subs[0];
    if (first === undefined) return [];
    if (subs.length === 1) return [{ result: await this.acceptOne(first) }];
    const res = await pipelinedStatement<{ admitted: boolean | null; refusal_code: string | null; refusal_detail: string | null }>(this.pool, {
      ...this.submitMany,
      values: [first.r.task.userId, this.boss ? this.bossSchema : null, JSON.stringify(subs.map((sub) => this.item(sub)))],
    });
    // Rows come in item order; an admitted item that is not inline got its generation job (a replay is a refusal).
    const jobs = res.rows.filter((row, i) => row.refusal_code === null && row.admitted === true && subs[i]?.r.inline !== true).length;
    if (jobs > 0) this.wakeJobs(QUEUES.generate, jobs);
    return res.rows.map((row): BatchAnswer => {
      if (row.refusal_code === null) return { result: { outcome: 'accepted', admitted: row.admitted === true } };
      const refusal = { code: row.refusal_code, ...(row.refusal_detail === null ? {} : { detail: row.refusal_detail }) };
      const result = refusalOf(refusal);
      return result ? { result } : { error: Object.assign(new Error(`gengate_submit_task refused with an unknown SQLSTATE ${refusal.code}`), refusal) };
    });
  }

  /** One item of gengate_submit_tasks (the batch's user and pg-boss schema are its own arguments). */
  private item({ r, jobId }: Submission): Record<string, unknown> {
    const t = r.task;
    const idem = r.idempotency;
    return {
      task_id: t.id,
      api_key_id: t.apiKeyId,
      model_id: t.modelId,
      modality: t.modality,
      request: t.request,
      callback_url: t.callbackUrl,
      quoted_micro: t.quotedMicro,
      quoted_cost_micro: t.quotedCostMicro,
      max_running: r.maxRunning,
      max_queued: r.maxQueued,
      job_id: jobId,
      provider_id: r.providerId,
      idempotency_key: idem?.key ?? null,
      request_hash: idem?.requestHash ?? null,
      response: idem?.response ?? null,
      at: r.at.toISOString(),
      member_id: t.memberId ?? t.userId,
    };
  }

  private parameters(r: TaskIntakeRequest, jobId: string | null): unknown[] {
    const t = r.task;
    const idem = r.idempotency;
    return [
      t.id,
      t.userId,
      t.apiKeyId,
      t.modelId,
      t.modality,
      JSON.stringify(t.request),
      t.callbackUrl,
      t.quotedMicro,
      t.quotedCostMicro,
      r.maxRunning,
      r.maxQueued,
      this.boss ? this.bossSchema : null,
      jobId,
      r.providerId,
      idem?.key ?? null,
      idem?.requestHash ?? null,
      idem ? JSON.stringify(idem.response) : null,
      // As ISO text: pg's own Date conversion formats the local time field by field.
      r.at.toISOString(),
      t.memberId ?? t.userId,
    ];
  }
}

/** gengate_submit_task's refusals, by SQLSTATE (see migrations 012, 019 and 026). */
function refusalOf(e: { code: string; detail?: string }): Exclude<TaskIntakeResult, { outcome: 'accepted' }> | null {
  switch (e.code) {
    case 'GG402':
      return { outcome: 'insufficient_credits' };
    case 'GG401':
      return { outcome: 'key_revoked' };
    case 'GGK03':
    case 'GGK04':
    case 'GGK05': {
      const d = JSON.parse(e.detail ?? '{}') as { allowed?: string[] };
      const outcome = e.code === 'GGK03' ? 'model_not_allowed' : e.code === 'GGK04' ? 'provider_not_allowed' : 'modality_not_allowed';
      return { outcome: 'key_refused', refusal: { outcome, allowed: d.allowed ?? [] } };
    }
    case 'GGK29': {
      const d = JSON.parse(e.detail ?? '{}') as { limit?: number };
      return { outcome: 'key_refused', refusal: { outcome: 'key_concurrency_exceeded', limit: d.limit ?? 0 } };
    }
    case 'GGK02': {
      // bigint figures arrive as JSON numbers (exact below 2^53, far above any spend limit).
      const d = JSON.parse(e.detail ?? '{}') as { limit?: number; spent?: number; resetsAtMs?: number | null };
      const resetsAt = typeof d.resetsAtMs === 'number' ? new Date(d.resetsAtMs) : null;
      return { outcome: 'key_refused', refusal: { outcome: 'key_budget_exceeded', limitMicro: d.limit ?? 0, spentMicro: d.spent ?? 0, resetsAt } };
    }
    case 'GGM02': {
      const d = JSON.parse(e.detail ?? '{}') as { limit?: number; spent?: number; resetsAtMs?: number | null };
      const resetsAt = typeof d.resetsAtMs === 'number' ? new Date(d.resetsAtMs) : null;
      return { outcome: 'member_budget_exceeded', limitMicro: d.limit ?? 0, spentMicro: d.spent ?? 0, resetsAt };
    }
    case 'GG410':
      return { outcome: 'idempotency_race' };
    case 'GG429': {
      const d = JSON.parse(e.detail ?? '{}') as { admitted?: number; queued?: number };
      return { outcome: 'queue_full', admitted: d.admitted ?? 0, queued: d.queued ?? 0 };
    }
    case 'GG409': {
      const d = JSON.parse(e.detail ?? '{}') as { request_hash?: string; response?: JsonObject };
      return { outcome: 'replay', requestHash: d.request_hash ?? '', response: d.response ?? {} };
    }
    default:
      return null;
  }
}
