import type { Modality } from './modality.js';
import type { ProducedUsage } from './produced-usage.js';
import type { RunRequest } from './run-request.schema.js';
import type { JsonValue } from '../util/json.js';
import type { RouteAttempt } from './routing.js';

/** Facts about the upstream call, kept on the task for support and shown to operators. */
export interface UpstreamMetadata {
  /** The upstream's own id for the request (OpenAI `x-request-id`, Anthropic `request-id`, ...). */
  readonly requestId?: string;
  /** Why generation stopped, as the upstream says (`stop`, `length`, `content-filter`, ...). */
  readonly finishReason?: string;
  /** The upstream model that actually served the call, when it says. */
  readonly model?: string;
}

export const TASK_STATUSES = ['waiting', 'generating', 'success', 'fail'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export function isEndState(s: TaskStatus): boolean {
  return s === 'success' || s === 'fail';
}

/**
 * A file produced by a task: kept in the gateway's own blob store, or, when it is small (at most
 * `ExecuteTaskOptions.inlineResultMaxBytes`), with the task itself (`inline`, its bytes in
 * `TaskRecord.outputBodies`), written by the statement that commits the success.
 */
export interface TaskOutputFile {
  /** Blob-store key, e.g. `<task_id>/output-0.png` (also the name of an inline output: its URL is the same). */
  readonly key: string;
  readonly mediaType: string;
  readonly bytes: number;
  /** Kept with the task, not in the blob store: read it with `readOutput`. */
  readonly inline?: true;
}

/**
 * The bytes of a task's inline outputs, parallel to its `outputs` (null at an output kept in the blob
 * store); absent when none is inline. Only a task's own record carries them (a poll never reads them).
 */
export type OutputBodies = readonly (Uint8Array | null)[];

export interface TaskWarning {
  readonly param: string;
  readonly message: string;
}

/** The stored task (internal record). */
export interface TaskRecord {
  readonly id: string;
  /** The organization that owns the task and pays for it (docs/organizations.md). */
  readonly userId: string;
  /**
   * The member who submitted it (the key's member, or the signed-in user): whose spend limit it counts
   * against (docs/organizations.md). Stored tasks from before organizations read as `userId`.
   */
  readonly memberId: string;
  readonly apiKeyId: string | null;
  readonly modelId: string;
  readonly modality: Modality;
  readonly status: TaskStatus;
  readonly request: RunRequest;
  readonly callbackUrl: string | null;
  /** Credits held for the task at submission (the user's price, markup included), in micro-credits. */
  readonly quotedMicro: number;
  /** The upstream cost behind that quote (before markup), in micro-credits. */
  readonly quotedCostMicro: number;
  /** Credits actually charged (set on success), in micro-credits. */
  readonly chargedMicro: number | null;
  /** Upstream cost of what was charged (before markup), micro-credits: chargedMicro - costMicro is the margin. */
  readonly costMicro: number | null;
  /** The upstream's own statement of the cost, converted to micro-credits, where it gives one. */
  readonly reportedCostMicro: number | null;
  /** What the upstream produced (tokens, images, seconds), as reported. */
  readonly usage: ProducedUsage | null;
  /** Upstream request id, finish reason, serving model. */
  readonly upstreamMetadata: UpstreamMetadata | null;
  /** Fraction done (0..1) while generating, where the upstream reports it. */
  readonly progress: number | null;
  /** True once the task holds one of its user's running slots (its job is queued or it is generating). */
  readonly admitted: boolean;
  /** Number of the status check that is due next for a long-running upstream job (0 before the first). */
  readonly pollSeq: number;
  /** A verified upstream completion webhook, read by the next status check instead of asking the upstream. */
  readonly webhookPayload: JsonValue | null;
  readonly outputs: readonly TaskOutputFile[];
  /** The bytes of the inline outputs (see OutputBodies); absent when none is inline. */
  readonly outputBodies?: OutputBodies;
  readonly warnings: readonly TaskWarning[];
  readonly errorMessage: string | null;
  /** Persisted upstream handle of a long-running generation. */
  readonly upstreamHandle: JsonValue | null;
  readonly attempts: number;
  /**
   * The route of the latest attempt that reached an upstream (the one that answered, on success): the
   * catalog id of the provider model called. Absent or null before the first attempt (and in stores from
   * before routing).
   */
  readonly routeId?: string | null;
  /** Every attempt on a route, in order (also the routes skipped because their breaker was open). */
  readonly routeAttempts?: readonly RouteAttempt[];
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
}

/**
 * What a task's view (TaskView) is made of: the fields it shows, and those that decide whether it shows
 * the route (the model, the attempts, the request's routing fields). A TaskRecord is one; a poll reads
 * only these (TaskPoll).
 */
export type TaskViewSource = Pick<TaskRecord, 'id' | 'userId' | 'memberId' | 'modelId' | 'status' | 'outputs' | 'errorMessage' | 'progress' | 'routeId' | 'routeAttempts' | 'createdAt'> & {
  readonly request: Pick<RunRequest, 'provider' | 'models'>;
};

/** The public Task resource (poll response and callback body). */
export interface TaskView {
  task_id: string;
  status: TaskStatus;
  result_urls: string[];
  error_message: string | null;
  created_at: string;
  /** gengate extension: fraction done (0..1) while generating, where the provider reports it. */
  progress?: number;
  /** gengate extension: the route that served the task (of its latest attempt while it runs); absent before the first attempt. */
  route?: TaskRouteView;
  /** gengate extensions: the attempt log (absent before the first attempt). */
  extensions?: { attempts: RouteAttemptView[] };
}

/** The route of a task, as the task JSON shows it. */
export interface TaskRouteView {
  /** The route's id: the catalog id of the provider model called (`fal.kling-v2.1-master`). */
  id: string;
  provider: string;
}

/** One attempt of a task's attempt log, as the task JSON shows it. */
export interface RouteAttemptView {
  route: string;
  provider: string;
  /** `success`, `started` (a long-running job the upstream accepted), `error`, or `skipped` (the route's circuit breaker was open). */
  outcome: string;
  /** The upstream error class (`rate_limited`, `server`, `network`, `timeout`, `content_policy`...), `deadline`, `circuit_open`; null on success. */
  error_class: string | null;
  upstream_status: number | null;
  started_at: string;
  ended_at: string;
}
