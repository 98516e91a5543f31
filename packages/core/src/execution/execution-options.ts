import type { Modality } from '../model/modality.js';
import type { InputFile } from '../ports/provider-adapter.js';
import type { SchedulingOptions } from './scheduling.js';

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
  readonly scheduling: SchedulingOptions;
  /** Secret values (operator credentials) that must never reach a task's error_message or a log line. */
  readonly secrets: readonly string[];
  /** Reads a user's reference URL for an adapter (the host guards addresses and caps sizes). */
  readonly readInput: (url: string, signal: AbortSignal) => Promise<InputFile>;
  /** The URL an upstream may call when a long-running job ends, when the host has a public URL. */
  readonly webhookUrl: (providerId: string, taskId: string) => string | null;
}

export const DEFAULT_DEADLINES_MS: Readonly<Record<Modality, number>> = {
  chat: 120_000,
  image: 300_000,
  video: 900_000,
};
