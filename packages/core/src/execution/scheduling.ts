import type { Modality } from '../model/modality.js';
import type { TransactionScope } from '../ports/stores.js';
import type { SchedulingOptions } from '../ports/settings.js';

/** Fairness between users: the settings type lives in `ports/settings.ts` (every injectable may name it). */
export type { SchedulingOptions } from '../ports/settings.js';

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
