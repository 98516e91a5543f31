import type pg from 'pg';
import type { ConnectionOptions } from 'pg-boss';
import { pipelinedTransaction } from './statement-pipeline.js';

/** What pg-boss runs its statements on when given a `db` (its IDatabase). */
export type BossDb = NonNullable<ConnectionOptions['db']>;

/**
 * A database for pg-boss's fetch of GENERATION jobs whose commit does not wait for its WAL flush: BEGIN,
 * `SET LOCAL synchronous_commit = off`, the fetch, COMMIT, in one write on `pool`. The fetch is on the path
 * of every dispatch, and on a slow disk its fsync was a few milliseconds of each one.
 *
 * Why nothing is lost: the fetch only claims the job. Before the upstream is called, the worker's claim of
 * the task (`markGenerating`) commits synchronously, and a synchronous commit flushes the WAL up to its
 * own record, the fetch's commit record included. A PostgreSQL crash between the two undoes the fetch as
 * if it never ran (the job is `created` again, the task still `waiting`) and a later fetch takes it.
 * Other sessions see the claim as soon as it commits, flushed or not, so no other worker takes the job.
 * Not for a queue whose job acts outside the database before a synchronous commit of its own (callbacks).
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
