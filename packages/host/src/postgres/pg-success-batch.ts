import type pg from 'pg';
import { JOBS_READY_CHANNEL } from './job-wakeups.js';
import { QUEUES } from './boss-queues.js';
import { prepared, type NamedStatement } from './prepared-statements.js';
import { pipelinedStatement, type PipelinedStatement } from './statement-pipeline.js';
import { TurnBatch } from './turn-batch.js';

/** One task's success: gengate_finish_success's arguments, in its order, but `p_boss` (the same for all: `boss`). */
export interface SuccessEnd {
  readonly taskId: string;
  /** The task's owner: the batch ends tasks in (user, task) order. */
  readonly userId: string;
  /** The task has a callback URL: its job's workers are woken right after the commit. */
  readonly callback: boolean;
  /** $1..$12 and $14..$17 of gengate_finish_success ($13, p_boss, left out). */
  readonly args: readonly unknown[];
}

/** An end's answer, or the error of its own statement when it had to run alone. */
export type SuccessOutcome<F> = { readonly ok: F } | { readonly error: unknown };

/** Most ends in one statement: its transaction holds every row lock it takes until its commit. */
const MAX_BATCH = 32;

const single = (schema: string) =>
  `select ${schema}.gengate_finish_success($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) as r`;

const many = (schema: string) => `select s.item as i, s.report as r from ${schema}.gengate_finish_successes($1::uuid[], $2::jsonb[], $3::jsonb[],
      $4::bigint[], $5::bigint[], $6::bigint[], $7::jsonb[], $8::jsonb[], $9::timestamptz[], $10::text[], $11::uuid[], $12::int[], $13,
      $14::text[], $15::uuid[], $16::int[], $17::text[]) s`;

/** The NOTIFY that wakes `n` callback workers, sent right after the commit (a transaction of its own). */
const callbacksReady = (n: number): PipelinedStatement => ({ text: 'select pg_notify($1, $2)', values: [JOBS_READY_CHANNEL, `${QUEUES.callback} ${n}`] });

/**
 * The successes of one turn of the event loop (the workers whose upstream calls answered in the same
 * wake-up), ended by ONE statement, a transaction by itself: gengate_finish_successes, which makes each kind
 * of write once for the batch (the tasks, the holds, the usage transactions, the account's deltas, the jobs)
 * with the money rules of a single end (functions/finish-successes.ts): one round trip, one commit (one WAL
 * flush), one executor start per kind of write for all of them. A lone end calls gengate_finish_success,
 * the same function for one item.
 *
 * Lock order: the tasks are ended in (user id, task id) order, so that two batches (of this process or
 * another) that end tasks of the same users take the users' locks (the account row on the locked path, the
 * slots lock shared otherwise) in the same order and cannot wait for each other in a cycle; a
 * one-user transaction (a submission, a cancel) takes one user's locks only.
 *
 * No subtransaction per task: the function raises only on what fails a single end too (no job queue, a
 * lost connection, a deadlock with a statement that locks several job rows); the whole batch then rolls
 * back and each end runs again alone, as it did before batching, and answers its own outcome.
 */
export class SuccessBatch<F> {
  private readonly single: NamedStatement;
  private readonly many: NamedStatement;
  private readonly batch = new TurnBatch<SuccessEnd, SuccessOutcome<F>>((ends) => this.endMany(ends), { max: MAX_BATCH });

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    /** pg-boss's schema (null: no job queue). */
    private readonly boss: string | null,
  ) {
    this.single = prepared('gengate_finish_success', single(schema));
    this.many = prepared('gengate_finish_successes', many(schema));
  }

  /** Ends the task with the others of this turn; `{ error }` when its own statement failed. */
  end(e: SuccessEnd): Promise<SuccessOutcome<F>> {
    return this.batch.call(e);
  }

  private async endOne(e: SuccessEnd): Promise<SuccessOutcome<F>> {
    const a = e.args;
    try {
      const res = await pipelinedStatement<{ r: F }>(
        this.pool,
        { ...this.single, values: [...a.slice(0, 12), this.boss, ...a.slice(12)] },
        e.callback ? callbacksReady(1) : undefined,
      );
      const r = res.rows[0]?.r;
      return r === undefined ? { error: new Error('gengate_finish_success answered no row') } : { ok: r };
    } catch (error) {
      return { error };
    }
  }

  private async endMany(ends: readonly SuccessEnd[]): Promise<SuccessOutcome<F>[]> {
    if (ends.length === 1) return [await this.endOne(ends[0] as SuccessEnd)];
    const order = ends.map((_, i) => i).sort((i, j) => compare(ends[i] as SuccessEnd, ends[j] as SuccessEnd));
    const columns: unknown[][] = Array.from({ length: 16 }, () => []);
    for (const i of order) (ends[i] as SuccessEnd).args.forEach((v, k) => columns[k]?.push(v));
    const callbacks = ends.filter((e) => e.callback).length;
    let rows: { i: string; r: F }[];
    try {
      const res = await pipelinedStatement<{ i: string; r: F }>(
        this.pool,
        { ...this.many, values: [...columns.slice(0, 12), this.boss, ...columns.slice(12)] },
        callbacks > 0 ? callbacksReady(callbacks) : undefined,
      );
      rows = res.rows;
    } catch {
      // Rolled back whole: each end alone, with its own outcome.
      return Promise.all(ends.map((e) => this.endOne(e)));
    }
    const out: SuccessOutcome<F>[] = new Array<SuccessOutcome<F>>(ends.length);
    for (const row of rows) out[order[Number(row.i) - 1] as number] = { ok: row.r };
    for (let i = 0; i < out.length; i++) out[i] ??= { error: new Error('the batched end answered no row for this task') };
    return out;
  }
}

function compare(a: SuccessEnd, b: SuccessEnd): number {
  if (a.userId !== b.userId) return a.userId < b.userId ? -1 : 1;
  return a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0;
}
