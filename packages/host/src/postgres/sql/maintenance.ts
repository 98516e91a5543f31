import type { Queryable } from '../queryable.js';

/** Deletes at most `batch` rows per statement until none is left, so no statement holds locks for long. */
async function deleteInBatches(db: Queryable, sql: string, values: unknown[], batch = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await db.query(sql, [...values, batch]);
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return total;
  }
}

/** Idempotency records past their 24-hour validity. */
export function purgeIdempotencyKeys(db: Queryable, schema: string, retentionSeconds: number): Promise<number> {
  return deleteInBatches(
    db,
    `delete from ${schema}.idempotency_keys where (user_id, key) in (
       select user_id, key from ${schema}.idempotency_keys where created_at < now() - make_interval(secs => $1) limit $2)`,
    [retentionSeconds],
  );
}

/** Callback delivery attempts past their retention. */
export function purgeCallbackAttempts(db: Queryable, schema: string, retentionSeconds: number): Promise<number> {
  return deleteInBatches(
    db,
    `delete from ${schema}.callback_attempts where id in (
       select id from ${schema}.callback_attempts where created_at < now() - make_interval(secs => $1) limit $2)`,
    [retentionSeconds],
  );
}

/**
 * Deletes the stored files of failed tasks (a worker may store them after a cancel). A task is marked
 * swept once no worker can still write (lateWriteSeconds after it ended); until then each run deletes
 * again. At most `limit` tasks per run, oldest first.
 */
export async function deleteFilesOfFailedTasks(
  db: Queryable,
  schema: string,
  lateWriteSeconds: number,
  deleteFiles: (taskId: string) => Promise<void>,
  limit = 500,
): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `select id from ${schema}.tasks where status = 'fail' and files_swept_at is null order by finished_at limit $1`,
    [limit],
  );
  for (const { id } of rows) await deleteFiles(id);
  if (rows.length > 0) {
    await db.query(
      `update ${schema}.tasks set files_swept_at = now()
       where id = any($1::uuid[]) and finished_at < now() - make_interval(secs => $2)`,
      [rows.map((r) => r.id), lateWriteSeconds],
    );
  }
  return rows.length;
}

/**
 * Marks failed the pending top-ups that can no longer be paid: older than their payment method's TTL
 * (Stripe: the Checkout Session's expiry plus a margin; manual: the operator's window).
 */
export async function expirePendingTopups(db: Queryable, schema: string, ttlSeconds: Readonly<Partial<Record<'stripe' | 'manual', number>>>): Promise<number> {
  let total = 0;
  for (const [method, ttl] of Object.entries(ttlSeconds)) {
    if (ttl === undefined) continue;
    const { rowCount } = await db.query(
      `update ${schema}.transactions set status = 'failed'
       where status = 'pending' and payment_method = $1 and created_at < now() - make_interval(secs => $2)`,
      [method, ttl],
    );
    total += rowCount ?? 0;
  }
  return total;
}

/** Corrects the unfinished-task counts of accounts that disagree with their tasks (should be none); returns how many. */
export async function recountActiveTasks(db: Queryable, schema: string): Promise<number> {
  const { rowCount } = await db.query(`select * from ${schema}.gengate_recount_active_tasks()`);
  return rowCount ?? 0;
}

/**
 * Folds the pending usage rows (032) into the hourly and daily rollups; returns how many it folded (0 when
 * another fold was running: that one takes them).
 */
export async function foldUsagePending(db: Queryable, schema: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select ${schema}.gengate_fold_usage_pending() as n`);
  return Math.max(0, rows[0]?.n ?? 0);
}
