import type { Modality } from '../model/modality.js';
import type { TaskRecord } from '../model/task.js';
import type { UpstreamMetadata } from './provider-adapter.js';
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

/** A waiting or generating task to end in `fail` (an upstream failure, a cancel, the sweep, exhausted jobs). */
export interface TaskFailureCompletion {
  readonly taskId: string;
  readonly errorMessage: string;
  readonly at: Date;
  readonly metadata?: UpstreamMetadata;
  /** The user's running slots per modality (a queued task takes the one this task frees). */
  readonly maxRunningPerUser: Readonly<Record<Modality, number>>;
}

/** The task a failure ended (for telemetry). */
export type EndedTask = Pick<TaskRecord, 'modelId' | 'startedAt'>;

/**
 * Commits the end of a task with its money, each in one transaction:
 * - `succeed`: generating -> success, the charge from its hold (never above it) with the hold settled,
 *   the user's balance alerts (a crossing disarms and enqueues one mail), the callback job, and the
 *   admission of the user's next queued task into the running slot it frees, with its generation job.
 * - `fail`: waiting or generating -> fail, the hold released, the callback job, and the admission of
 *   the user's next queued task.
 *
 * `UnitOfWorkTaskCompletion` implements it over the fine-grained ports (memory and custom stores); on
 * PostgreSQL, `PgTaskCompletion` calls the SQL functions of migration 018, where these rules live for
 * that database. Both are held to one contract suite.
 */
export interface TaskCompletion {
  /** False when the task had already ended (cancelled, failed by the sweep): nothing was written. */
  succeed(c: TaskSuccessCompletion): Promise<boolean>;
  /** Null when the task had already ended (or does not exist): nothing was written. */
  fail(c: TaskFailureCompletion): Promise<EndedTask | null>;
}
