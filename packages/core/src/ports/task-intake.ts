import type { KeyRefusal } from '../model/api-key.js';
import type { JsonObject } from '../util/json.js';
import type { NewTask } from './stores.js';

/** A validated, priced submission, ready to be written. */
export interface TaskIntakeRequest {
  /** The task as it will be stored; `admitted` is decided by the intake. Its `quotedMicro` is held. */
  readonly task: Omit<NewTask, 'admitted'>;
  /** The user's running slots for the task's modality and the most tasks that may wait behind them. */
  readonly maxRunning: number;
  readonly maxQueued: number;
  /** The provider of the task's model (its generation job is grouped by it). */
  readonly providerId: string;
  /** The submission's time (the injected clock): it decides the key's budget period. */
  readonly at: Date;
  /**
   * A call run by the API process itself (a streamed chat): no generation job is enqueued. Such a task
   * is never queued: give `maxQueued: 0`, so a user whose running slots are taken is refused.
   */
  readonly inline?: boolean;
  /**
   * The W3C `traceparent` of the submission's span, kept with the task so its jobs join the submission's
   * trace (set by the host's tracing decorator when tracing is on; an intake without a queue may ignore it).
   */
  readonly traceParent?: string;
  /** With an Idempotency-Key: the key, the hash of the request and the response to remember. */
  readonly idempotency: { readonly key: string; readonly requestHash: string; readonly response: JsonObject } | null;
}

/** What the intake did; anything but `accepted` wrote nothing. */
export type TaskIntakeResult =
  | { readonly outcome: 'accepted'; readonly admitted: boolean }
  /** The key was used within 24 hours: the earlier request's hash and response. */
  | { readonly outcome: 'replay'; readonly requestHash: string; readonly response: JsonObject }
  /** A concurrent request with the same key committed first; asking again answers `replay`. */
  | { readonly outcome: 'idempotency_race' }
  | { readonly outcome: 'insufficient_credits' }
  /** The API key was revoked while the request was in flight. */
  | { readonly outcome: 'key_revoked' }
  /** The API key's own controls refused it (allow-lists, concurrency cap, spend limit): keys/key-admission.ts. */
  | { readonly outcome: 'key_refused'; readonly refusal: KeyRefusal }
  /**
   * The member's spend limit in the organization (held + charged in its period, plus this quote, would
   * pass it): members/member-admission.ts; on PostgreSQL gengate_member_budget_admit (migration 026).
   */
  | { readonly outcome: 'member_budget_exceeded'; readonly limitMicro: number; readonly spentMicro: number; readonly resetsAt: Date | null }
  /** The user's running slots are taken and their queue is full. */
  | { readonly outcome: 'queue_full'; readonly admitted: number; readonly queued: number };

/**
 * Writes an accepted submission atomically: the hold on the user's credits, the task (admitted to a
 * running slot or queued behind the user's running tasks), its generation job when admitted, and the
 * idempotency record. The check that the API key is still active happens under the same lock a revoke
 * takes, so no task of a key commits after its revocation did.
 *
 * `UnitOfWorkTaskIntake` implements it over the fine-grained ports (memory stores, custom stores); the
 * PostgreSQL host binds a one-round-trip implementation.
 */
export interface TaskIntake {
  accept(request: TaskIntakeRequest): Promise<TaskIntakeResult>;
}
