import type { AcceptedProviderAdapter, BlobStore, TaskCompletion, TaskIntake } from '@gengate/core';
import type { RequestHandler } from 'express';

/** A queue job a worker is about to run, as its trace needs it. */
export interface TracedJob {
  /** `generate`: a generation job (one attempt); `check`: a status check of a long-running upstream job. */
  readonly kind: 'generate' | 'check';
  readonly taskId: string;
  readonly checkNumber?: number;
  /** When the job could first run: the later of its creation and its `startAfter` (the queue wait starts here). */
  readonly readyAt: Date;
}

/** What a job's spans need of its task (read only when tracing is on). */
export interface TaskTrace {
  /** The W3C traceparent of the task's submission span; null when the task was submitted with tracing off. */
  readonly traceParent: string | null;
  /** Attempts begun so far (a generation job begins the next one). */
  readonly attempts: number;
  readonly modelId: string;
  readonly userId: string;
}

/**
 * gengate's OpenTelemetry traces, seen from the host: decorators around core's ports and the adapters, the
 * HTTP request's span and the spans of a queue job. This interface imports nothing of OpenTelemetry: its
 * one implementation (`tracing/otel/`) is loaded only when tracing is on (`startTracing`, `loadTracing`),
 * so a host without tracing builds no span and loads no OpenTelemetry package.
 */
export interface HostTracing {
  /** Express middleware: a SERVER span per request, continuing an incoming W3C `traceparent`. */
  readonly http: RequestHandler;
  /** The submission's `gengate.intake` span; it hands the span's traceparent to the intake to keep on the task. */
  intake(inner: TaskIntake): TaskIntake;
  /** `gengate.settle` spans around the end of a task and its money. */
  completion(inner: TaskCompletion): TaskCompletion;
  /** `gengate.download` spans around storing a result file (its download streams through `put`). */
  blobStore(inner: BlobStore): BlobStore;
  /** Upstream-call spans with the GenAI attributes around each adapter's generate / start / status / cancel. */
  adapters(inner: readonly AcceptedProviderAdapter[]): readonly AcceptedProviderAdapter[];
  /** Runs a queue job under its task's trace: a `gengate.queue_wait` span, then `gengate.attempt` or `gengate.status_check`. */
  job<T>(job: TracedJob, task: TaskTrace | null, run: () => Promise<T>): Promise<T>;
  /** Flushes and stops the exporter this tracing started (nothing when it uses a provider it was given). */
  shutdown(): Promise<void>;
}
