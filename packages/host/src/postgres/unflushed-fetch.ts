import type pg from 'pg';
import type { ConnectionOptions } from 'pg-boss';
import { pipelinedTransaction } from './statement-pipeline.js';

/** What pg-boss runs its statements on when given a `db` (its IDatabase). */
export type BossDb = NonNullable<ConnectionOptions['db']>;

/**
 * A database for pg-boss's fetch of generation and callback jobs whose commit does not wait for its WAL
 * flush: BEGIN, `SET LOCAL synchronous_commit = off`, the fetch, COMMIT, in one write on `pool`. The fetch
 * is on the path of every dispatch and every callback, and on a slow disk its fsync was a few
 * milliseconds of each one.
 *
 * Why nothing is lost: the fetch only claims the job. A PostgreSQL crash before the fetch's record is
 * flushed undoes it as if it never ran (the job is `created` again) and a later fetch takes the job.
 * Other sessions see the claim as soon as it commits, flushed or not, so no other worker takes the job.
 * - Generation: before the upstream is called, the worker's claim of the task (`markGenerating`) commits
 *   synchronously, and a synchronous commit flushes the WAL up to its own record, the fetch's included.
 *   So an undone fetch is one whose job has called no one.
 * - Callbacks: the POST follows the fetch, and the attempt's record (which completes the job) commits
 *   synchronously after it. A crash in between sends the callback again, with the same `webhook-id`:
 *   what a process killed between the POST and the record already does, within the at-least-once
 *   delivery of docs/callbacks.md. (With a flushed fetch the job would be retried after its heartbeat
 *   lapses: the same second delivery, later.)
 * Not for a job that moves money or writes anything outside the database that a second run would repeat
 * unannounced.
 */
export function unflushedFetchDb(pool: pg.Pool): BossDb {
  return {
    executeSql: (text, values) =>
      pipelinedTransaction(pool, async (p) => {
        void p.query('set local synchronous_commit = off');
        return { result: p.query(text, values) };
      }),
  };
}
