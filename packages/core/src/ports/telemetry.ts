/** How a task ended, as its status says (a cancelled task ends in `fail`). */
export type TaskOutcome = 'success' | 'fail';

/** Which adapter method an upstream call was. */
export type UpstreamOperation = 'generate' | 'start' | 'status';

/** Why a submission was refused before anything was written. */
export type SubmissionRefusal = 'overloaded' | 'insufficient_credits' | 'too_many_tasks' | 'key_revoked' | 'key_refused' | 'member_budget_exceeded';

/**
 * What the use cases report for metrics. Every method is called on a hot path: implementations must be
 * synchronous and cheap (increment a counter, observe a histogram), never I/O. The host implements it
 * with prom-client; the default does nothing.
 */
export interface Telemetry {
  /** A task was written (a replayed Idempotency-Key is not a new task). */
  taskSubmitted(e: { readonly modelId: string; readonly provider: string }): void;
  submissionRefused(e: { readonly reason: SubmissionRefusal }): void;
  /** A task's first generation attempt began (its status became `generating`). */
  taskStarted(e: { readonly modelId: string; readonly provider: string }): void;
  /** A task ended; generationMs is the time from its first start to its end (null when it never started). */
  taskEnded(e: { readonly modelId: string; readonly provider: string; readonly outcome: TaskOutcome; readonly generationMs: number | null }): void;
  /** One upstream call ended; errorClass is null on success, else the UpstreamError kind (or `aborted`, `internal`). */
  upstreamCall(e: { readonly provider: string; readonly operation: UpstreamOperation; readonly errorClass: string | null; readonly durationMs: number }): void;
}

export const NO_TELEMETRY: Telemetry = {
  taskSubmitted: () => undefined,
  submissionRefused: () => undefined,
  taskStarted: () => undefined,
  taskEnded: () => undefined,
  upstreamCall: () => undefined,
};
