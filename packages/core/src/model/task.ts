import type { Modality } from './modality.js';
import type { RunRequest } from '../run/run-request.schema.js';
import type { JsonValue } from '../util/json.js';

export const TASK_STATUSES = ['waiting', 'generating', 'success', 'fail'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export function isEndState(s: TaskStatus): boolean {
  return s === 'success' || s === 'fail';
}

/** A file produced by a task, kept in the gateway's own blob store. */
export interface TaskOutputFile {
  /** Blob-store key, e.g. `<task_id>/output-0.png`. */
  readonly key: string;
  readonly mediaType: string;
  readonly bytes: number;
}

export interface TaskWarning {
  readonly param: string;
  readonly message: string;
}

/** The stored task (internal record). */
export interface TaskRecord {
  readonly id: string;
  readonly userId: string;
  readonly apiKeyId: string | null;
  readonly modelId: string;
  readonly modality: Modality;
  readonly status: TaskStatus;
  readonly request: RunRequest;
  readonly callbackUrl: string | null;
  /** Credits held for the task at submission, in micro-credits. */
  readonly quotedMicro: number;
  /** Credits actually charged (set on success), in micro-credits. */
  readonly chargedMicro: number | null;
  readonly outputs: readonly TaskOutputFile[];
  readonly warnings: readonly TaskWarning[];
  readonly errorMessage: string | null;
  /** Persisted upstream handle of a long-running generation. */
  readonly upstreamHandle: JsonValue | null;
  readonly attempts: number;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
}

/** The public Task resource (poll response and callback body). */
export interface TaskView {
  task_id: string;
  status: TaskStatus;
  result_urls: string[];
  error_message: string | null;
  created_at: string;
}
