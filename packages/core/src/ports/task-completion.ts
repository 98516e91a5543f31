import type { TaskRecord } from '../model/task.js';
import type { TaskSuccess } from './stores.js';

/** A successful generation, its files stored, ready to be committed. */
export interface TaskSuccessCompletion {
  readonly task: Pick<TaskRecord, 'id' | 'userId' | 'modality' | 'callbackUrl'>;
  readonly success: TaskSuccess;
  /** The usage transaction's description. */
  readonly chargeDescription: string;
  /** The user's running slots for the task's modality (a queued task takes the one this task frees). */
  readonly maxRunning: number;
}

/**
 * Commits a task's success in one transaction: generating -> success, the charge from its hold (never
 * above it) with the hold settled, the user's balance alerts, the callback job, and the admission of
 * the user's next queued task into the running slot it frees.
 *
 * `UnitOfWorkTaskCompletion` implements it over the fine-grained ports; the PostgreSQL host binds one
 * that commits the common case (no queued task to admit, no alert to fire) in one round trip.
 */
export interface TaskCompletion {
  /** False when the task had already ended (cancelled, failed by the sweep): nothing was written. */
  succeed(c: TaskSuccessCompletion): Promise<boolean>;
}
