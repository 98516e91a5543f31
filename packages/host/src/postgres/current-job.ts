import { AsyncLocalStorage } from 'node:async_hooks';

/** The pg-boss job a worker is running: its queue, id and the attempt it fetched (retry_count). */
export interface JobAttempt {
  readonly queue: string;
  readonly id: string;
  readonly attempt: number;
}

const current = new AsyncLocalStorage<JobAttempt>();

/**
 * Runs a job's handler with the job known to what it calls: the transaction that ends the job's task
 * (PgTaskCompletion: success or failure) completes the job in the same commit, as pg-boss's complete()
 * would (fenced to the fetched attempt), so no separate completion is needed for it to count as done,
 * and a crash after that commit leaves a completed job, never one pg-boss retries.
 */
export function runAsJob<T>(job: JobAttempt, fn: () => Promise<T>): Promise<T> {
  return current.run(job, fn);
}

/** The job the current handler runs, if any (none in the API process). */
export function currentJob(): JobAttempt | undefined {
  return current.getStore();
}
