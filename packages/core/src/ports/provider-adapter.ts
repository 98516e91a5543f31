import type { ModelDescriptor } from '../model/model.js';
import type { TaskWarning } from '../model/task.js';
import type { NormalizedRequest } from '../run/normalized-request.js';
import type { JsonValue } from '../util/json.js';

/** The literal version of the adapter contract; bumped on any breaking change. */
export const ADAPTER_SPECIFICATION_VERSION = 'gengate.adapter/v1' as const;

/** What the worker hands an adapter for one call. */
export interface AdapterCall {
  readonly taskId: string;
  readonly model: ModelDescriptor;
  readonly request: NormalizedRequest;
  /** Aborted on deadline, cancellation or shutdown; adapters must pass it to every I/O they do. */
  readonly abortSignal: AbortSignal;
}

/** A produced file: bytes, or a URL the gateway downloads into its own blob store (upstream URLs expire). */
export type GeneratedFile =
  | { readonly kind: 'bytes'; readonly data: Uint8Array; readonly mediaType: string }
  | { readonly kind: 'url'; readonly url: string; readonly mediaType?: string };

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface GenerationResult {
  readonly files: readonly GeneratedFile[];
  /** Token usage for chat models; the actual cost is computed from it. */
  readonly usage?: TokenUsage;
  /** Parameters the upstream ignored or adjusted: reported on the task, never dropped silently. */
  readonly warnings?: readonly TaskWarning[];
}

export type LongRunningStatus =
  | { readonly state: 'running'; readonly progress?: number }
  | { readonly state: 'succeeded'; readonly result: GenerationResult }
  | { readonly state: 'failed'; readonly message: string; readonly isRetryable?: boolean };

/**
 * A provider adapter. Models, capabilities and prices are data; the call is one-shot (`generate`)
 * or long-running (`start` returns a JSON handle the worker persists, then `status` is polled).
 * Adapters throw `UpstreamError` (with `isRetryable`) for upstream failures.
 */
export interface ProviderAdapter {
  readonly specificationVersion: typeof ADAPTER_SPECIFICATION_VERSION;
  readonly providerId: string;
  readonly models: readonly ModelDescriptor[];
  /** True when the model uses start/status, false for generate. */
  isLongRunning(modelId: string): boolean;
  generate?(call: AdapterCall): Promise<GenerationResult>;
  start?(call: AdapterCall): Promise<JsonValue>;
  status?(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus>;
  /** Asks the upstream to stop a long-running generation, where it can. */
  cancel?(handle: JsonValue, call: AdapterCall): Promise<void>;
  /** Interval between status polls; defaults to 2 s. */
  readonly statusPollIntervalMs?: number;
}
