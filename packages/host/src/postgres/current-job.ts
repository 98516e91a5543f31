import { AsyncLocalStorage } from 'node:async_hooks';

/** The pg-boss job a worker is running: its queue, id and the attempt it fetched (retry_count). */
export interface JobAttempt {
  readonly queue: string;
  readonly id: string;
  readonly attempt: number;
}

/** A running job and whether a statement of its handler has settled it already (jobSettled). */
interface RunningJob {
  readonly job: JobAttempt;
  settled: boolean;
}

const current = new AsyncLocalStorage<RunningJob>();

/**
 * Runs a job's handler with the job known to what it calls: the transaction that ends the job's task
 * (PgTaskCompletion: success or failure) completes the job in the same commit, as pg-boss's complete()
 * would (fenced to the fetched attempt), so no separate completion is needed for it to count as done,
 * and a crash after that commit leaves a completed job, never one pg-boss retries.
 */
export async function runAsJob<T>(job: JobAttempt, fn: () => Promise<T>): Promise<T> {
  return (await runAsSettlingJob(job, fn)).value;
}

/**
 * runAsJob, also telling whether a committed statement of the handler settled the job (jobSettled): the
 * job dispatcher then sends no completion of its own.
 */
export async function runAsSettlingJob<T>(job: JobAttempt, fn: () => Promise<T>): Promise<{ value: T; settled: boolean }> {
  const running: RunningJob = { job, settled: false };
  const value = await current.run(running, fn);
  return { value, settled: running.settled };
}

/** The job the current handler runs, if any (none in the API process). */
export function currentJob(): JobAttempt | undefined {
  return current.getStore()?.job;
}

/** Tells the running handler's job that a committed statement ended it (completed by gengate_complete_job, removed by a success). */
export function jobSettled(): void {
  const running = current.getStore();
  if (running) running.settled = true;
}
