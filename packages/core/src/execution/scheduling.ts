import type { Modality } from '../model/modality.js';
import type { TransactionScope } from '../ports/stores.js';

/**
 * Fairness between users. Each user has at most `maxRunningPerUser[modality]` tasks admitted (their job
 * queued or generating); later tasks wait in the user's own queue, admitted oldest first as earlier ones
 * end. So one user's backlog occupies at most that many places in the shared job queue, and another
 * user's task waits for at most one task's run time once a worker slot is free.
 */
export interface SchedulingOptions {
  readonly maxRunningPerUser: Readonly<Record<Modality, number>>;
  /** Unfinished tasks a user may have waiting beyond the running ones; more are refused with 429. */
  readonly maxQueuedPerUser: number;
  /** Attempts of one task's upstream call (retryable failures start a new attempt), the first included. */
  readonly maxAttempts: number;
}

export const DEFAULT_SCHEDULING: SchedulingOptions = {
  maxRunningPerUser: { chat: 8, image: 4, video: 50 },
  maxQueuedPerUser: 1_000,
  maxAttempts: 4,
};

/** After a task of this user and modality ended (same transaction): admits queued tasks into the free slots and enqueues their jobs. */
export async function admitQueued(tx: TransactionScope, userId: string, modality: Modality, maxRunning: number): Promise<readonly string[]> {
  const { admitted } = await tx.tasks.activeCounts(userId, modality);
  const free = maxRunning - admitted;
  if (free <= 0) return [];
  const ids = await tx.tasks.admitQueued(userId, modality, free);
  for (const id of ids) await tx.jobs.enqueueGeneration(id);
  return ids;
}
