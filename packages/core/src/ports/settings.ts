import type { Modality } from '../model/modality.js';
import type { InputFile } from './provider-adapter.js';

/**
 * The settings an embedder gives the core (each bound to a setting token of `ports/tokens.ts`). They live
 * here, beside the ports, so that every injectable may name them without importing the layer that uses
 * them; `execution/` and `pricing/` re-export them with their defaults and rules.
 */

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

export interface ExecuteTaskOptions {
  /** Maximum run time per modality, in milliseconds, counted from the first start. */
  readonly deadlineMs: Readonly<Record<Modality, number>>;
  /**
   * Used to download files an adapter returns as URLs (hosts pass one that refuses private addresses
   * except the providers' own trusted origins).
   */
  readonly fetch: typeof fetch;
  /** Largest result file per modality, in bytes; a larger one fails the task with no charge. */
  readonly maxResultBytes: Readonly<Record<Modality, number>>;
  /**
   * A result an adapter returns whole (not a URL) of at most this many bytes is kept with its task (written by the statement that commits the
   * success) instead of in the blob store; 0 = every result goes to the blob store.
   */
  readonly inlineResultMaxBytes: number;
  readonly scheduling: SchedulingOptions;
  /** Secret values (operator credentials) that must never reach a task's error_message or a log line. */
  readonly secrets: readonly string[];
  /** Reads a user's reference URL for an adapter (the host guards addresses and caps sizes). */
  readonly readInput: (url: string, signal: AbortSignal) => Promise<InputFile>;
  /** The URL an upstream may call when a long-running job ends, when the host has a public URL. */
  readonly webhookUrl: (providerId: string, taskId: string) => string | null;
}

/**
 * The operator's markup: the user pays the upstream cost times this factor. A model's own factor wins over
 * its provider's, which wins over the default. Factors are basis points (10,000 = x1.0, 12,500 = x1.25).
 */
export interface MarkupPolicy {
  readonly defaultBp: number;
  /** Provider id -> basis points. */
  readonly providers: ReadonlyMap<string, number>;
  /** Model id -> basis points. */
  readonly models: ReadonlyMap<string, number>;
}
