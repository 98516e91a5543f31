import type { Queryable } from '../queryable.js';
import { quoteIdent } from '../schema.js';

/** Ended tasks past the retention age, oldest first (index tasks_ended, migration 016). */
export function endedTasksSql(schema: string): string {
  return `select id from ${quoteIdent(schema)}.tasks
    where status in ('success', 'fail') and finished_at < now() - make_interval(secs => $1) order by finished_at limit $2`;
}

/**
 * One batch in one short transaction: the tasks' callback attempts, holds and rows. The ledger
 * (transactions) is not touched. Only still-ended tasks are deleted (an id read earlier cannot have
 * come back to life, but the condition costs nothing).
 */
export function deleteEndedTasksSql(schema: string): string {
  const s = quoteIdent(schema);
  return `with doomed as (
      select id from ${s}.tasks where id = any($1::uuid[]) and status in ('success', 'fail') for update skip locked),
    attempts as (delete from ${s}.callback_attempts where task_id in (select id from doomed)),
    holds as (delete from ${s}.holds where task_id in (select id from doomed))
    delete from ${s}.tasks where id in (select id from doomed)`;
}

/** Finished pg-boss jobs of gengate's queues (completed, failed or cancelled) past the retention age, in batches. */
export function deleteFinishedJobsSql(bossSchema: string): string {
  const b = quoteIdent(bossSchema);
  return `delete from ${b}.job where id in (
      select id from ${b}.job where name = any($1::text[]) and state in ('completed', 'failed', 'cancelled')
        and completed_on < now() - make_interval(secs => $2) limit $3)`;
}

export interface RetentionOptions {
  readonly retentionSeconds: number;
  /** The gengate tables' schema. */
  readonly schema: string;
  readonly bossSchema: string;
  readonly queues: readonly string[];
  /** Tasks per batch (one short transaction each). Default 500. */
  readonly batch?: number;
  /** Stops after this many batches; the next sweep continues. Default 200. */
  readonly maxBatches?: number;
}

/**
 * Purges ended tasks older than the retention age, batch by batch: their files first (a file without its
 * task row is unreachable; a row without its files is harmless), then in one short transaction their
 * callback attempts, holds and rows; then the finished job rows. Returns the number of tasks purged.
 */
export async function purgeEndedTasks(
  db: Queryable,
  deleteFiles: (taskId: string) => Promise<void>,
  o: RetentionOptions,
): Promise<{ tasks: number; jobs: number }> {
  const batch = o.batch ?? 500;
  let tasks = 0;
  for (let i = 0; i < (o.maxBatches ?? 200); i++) {
    const { rows } = await db.query<{ id: string }>(endedTasksSql(o.schema), [o.retentionSeconds, batch]);
    if (rows.length === 0) break;
    const ids = rows.map((r) => r.id);
    for (const id of ids) await deleteFiles(id);
    const { rowCount } = await db.query(deleteEndedTasksSql(o.schema), [ids]);
    tasks += rowCount ?? 0;
    // Fewer than a full batch: done. None deleted: the rest are locked by someone else; the next sweep retries.
    if (rows.length < batch || (rowCount ?? 0) === 0) break;
  }
  let jobs = 0;
  for (let i = 0; i < (o.maxBatches ?? 200); i++) {
    const { rowCount } = await db.query(deleteFinishedJobsSql(o.bossSchema), [[...o.queues], o.retentionSeconds, 5_000]);
    jobs += rowCount ?? 0;
    if ((rowCount ?? 0) < 5_000) break;
  }
  return { tasks, jobs };
}
