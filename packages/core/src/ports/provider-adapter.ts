import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { UpstreamError } from '../errors/upstream-error.js';
import type { ModelDescriptor } from '../model/model.js';
import type { TaskWarning, UpstreamMetadata } from '../model/task.js';
import type { ProducedUsage } from '../model/produced-usage.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import type { JsonValue } from '../util/json.js';

/**
 * The literal version of the adapter contract; bumped on any breaking change.
 * v2: open capabilities and per-model provider parameters, prices in upstream micro-USD, usage and cost
 * in results, classified upstream errors, availability, and reference inputs read through the host.
 * v3: chat models stream: `languageModel(modelId)` hands the host the AI SDK language model (`LanguageModelV4`:
 * `doStream`/`doGenerate` with messages, tools and structured output in the SDK's own types) and
 * `upstreamError` classifies what it throws or streams as an error.
 * v4: `start` returns `{ handle, warnings }` (a `StartedJob`, the shape of the AI SDK's `doStart`): the warnings
 * of the start are stored on the task when the handle is saved, so `status` never recomputes them.
 */
export const ADAPTER_SPECIFICATION_VERSION = 'gengate.adapter/v4' as const;

/** The previous contract, accepted for one release and adapted on registration (see `adaptAcceptedAdapter`). */
export const ADAPTER_SPECIFICATION_VERSION_V3 = 'gengate.adapter/v3' as const;

/**
 * The versions a host accepts: v4, and v3 for one release (its `start` returns the bare handle; the
 * registry wraps it as `{ handle, warnings: [] }`). v2 was accepted for the v3 release and is no longer.
 */
export type AcceptedAdapterSpecificationVersion = typeof ADAPTER_SPECIFICATION_VERSION | typeof ADAPTER_SPECIFICATION_VERSION_V3;

/** Bytes of a user's reference input, read by the host through its address guard and size cap. */
export interface InputFile {
  readonly data: Uint8Array;
  readonly mediaType: string;
}

/**
 * What the host's dialect edge would like of a language model (optional; an adapter may ignore it).
 * `wire: 'responses'`: the call is a Responses API call (`/v1/responses`); an adapter whose upstream speaks
 * that API natively (OpenAI) may hand the SDK's Responses model, so the provider's own items (reasoning with
 * its encrypted content) survive the call. Every other adapter hands its usual model.
 */
export interface LanguageModelPreference {
  readonly wire?: 'responses';
}

/** What the worker hands an adapter for one call. */
export interface AdapterCall {
  readonly taskId: string;
  readonly model: ModelDescriptor;
  readonly request: NormalizedRequest;
  /** Aborted on deadline, cancellation or shutdown; adapters must pass it to every I/O they do. */
  readonly abortSignal: AbortSignal;
  /**
   * Reads a user-supplied reference URL (image_urls, video_urls) for a provider that needs the bytes.
   * Adapters never fetch a user's URL themselves: this goes through the host's private-address guard
   * and size cap. Providers that take URLs pass them on as they are.
   */
  readInput(url: string): Promise<InputFile>;
  /**
   * A URL the upstream may call when a long-running job ends (its completion webhook), when the host has
   * a public URL; null otherwise. Polling remains the fallback either way.
   */
  readonly webhookUrl: string | null;
}

/** A produced file: bytes, or a URL the gateway downloads into its own blob store (upstream URLs expire). */
export type GeneratedFile =
  | { readonly kind: 'bytes'; readonly data: Uint8Array; readonly mediaType: string }
  | { readonly kind: 'url'; readonly url: string; readonly mediaType?: string };

/** @deprecated v1 name; use ProducedUsage. */
export type TokenUsage = Required<Pick<ProducedUsage, 'inputTokens' | 'outputTokens'>>;

/** Facts about the upstream call (a task's own type, part of the adapter contract too). */
export type { UpstreamMetadata } from '../model/task.js';

export interface GenerationResult {
  readonly files: readonly GeneratedFile[];
  /**
   * What was produced: tokens for chat (required), images for image models (default: files.length),
   * seconds of video when the upstream reports them. The charge is computed from it, never above the hold.
   */
  readonly usage?: ProducedUsage;
  /** The upstream's own statement of what the call cost, in micro-USD, where it gives one. */
  readonly reportedCostMicroUsd?: number;
  /** Parameters the upstream ignored or adjusted: reported on the task, never dropped silently. */
  readonly warnings?: readonly TaskWarning[];
  readonly metadata?: UpstreamMetadata;
}

export type LongRunningStatus =
  | {
      readonly state: 'running';
      /** Fraction done, 0..1, where the upstream reports it. */
      readonly progress?: number;
      /** When to ask again, if the upstream says (otherwise the adapter's poll schedule). */
      readonly retryAfterMs?: number;
    }
  | { readonly state: 'succeeded'; readonly result: GenerationResult }
  | { readonly state: 'failed'; readonly error: UpstreamError };

/** What `start` returns: the JSON handle the worker persists, and what the start adjusted or ignored. */
export interface StartedJob {
  /** Plain JSON, saved on the task before any wait: a restarted worker follows it, never submits twice. */
  readonly handle: JsonValue;
  /** Parameters the upstream (or the mapping) ignored or adjusted, stored on the task at start. */
  readonly warnings: readonly TaskWarning[];
}

/** An upstream's completion webhook as the host received it (the raw body, for signature checks). */
export interface WebhookRequest {
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: Uint8Array;
  /** The full URL it was sent to, query included. */
  readonly url: string;
}

/** What a verified completion webhook says: which upstream job, and its state. */
export interface WebhookEvent {
  readonly jobId: string;
  readonly status: LongRunningStatus;
}

/** Thrown by verifyWebhook when a webhook is not authentic (bad or missing signature, stale timestamp). */
export class WebhookRejected extends Error {
  override readonly name = 'WebhookRejected';
}

/**
 * Thrown by verifyWebhook when the provider's keys or secret cannot be had right now (its endpoint failed;
 * the next fetch is allowed in `retryAfterSeconds`): the host answers 503 with Retry-After.
 */
export class WebhookUnverifiable extends Error {
  override readonly name = 'WebhookUnverifiable';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/** Whether an adapter can serve calls; unavailable providers keep their models listed, inactive. */
export type AdapterAvailability =
  | {
      readonly available: true;
      /** The settings holding its credentials, named when the provider rejects them (never their values). */
      readonly settings?: readonly string[];
    }
  | {
      readonly available: false;
      /** A sentence for the API's 4xx and the start-up log, naming the setting to fix; never a secret. */
      readonly reason: string;
      /** The configuration settings that are missing or wrong, e.g. ['OPENAI_API_KEY']. */
      readonly settings: readonly string[];
    };

/**
 * A provider adapter. Models, capabilities and prices are data; the call is one-shot (`generate`)
 * or long-running (`start` returns a JSON handle and its warnings, the worker persists both, then
 * `status` is checked on a schedule). Adapters throw `UpstreamError` (classified, with `isRetryable`
 * and `retryAfterMs`).
 */
export interface ProviderAdapter {
  readonly specificationVersion: typeof ADAPTER_SPECIFICATION_VERSION;
  readonly providerId: string;
  readonly models: readonly ModelDescriptor[];
  /** Default: available. */
  readonly availability?: AdapterAvailability;
  /**
   * Origins (`http://127.0.0.1:4010`) of the provider's own configured base URLs. The host downloads result
   * URLs through an address guard that refuses private and loopback addresses; these origins are exempt
   * (so a fake upstream on loopback works in tests). Never list a user-controlled origin.
   */
  readonly trustedOrigins?: readonly string[];
  /** True when the model uses start/status, false for generate. */
  isLongRunning(modelId: string): boolean;
  generate?(call: AdapterCall): Promise<GenerationResult>;
  /** v4: the job's handle and the warnings of its start (the final result's warnings are added at the end). */
  start?(call: AdapterCall): Promise<StartedJob>;
  status?(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus>;
  /** Asks the upstream to stop a long-running generation, where it can. */
  cancel?(handle: JsonValue, call: AdapterCall): Promise<void>;
  /**
   * v3, required of an adapter offering chat models: the AI SDK language model behind a chat model
   * (`LanguageModelV4`), called by the host's dialect edges (`/v1/chat/completions`) in the API process.
   * Its `doStream` ends with a `finish` part carrying the upstream's reported usage (ask the upstream for
   * it, e.g. OpenAI's `stream_options.include_usage`), honours `abortSignal`, and does no retries.
   */
  languageModel?(modelId: string, preference?: LanguageModelPreference): LanguageModelV4;
  /** v3: classifies an error thrown by, or streamed as an `error` part of, `languageModel`'s calls (secrets redacted). */
  upstreamError?(error: unknown): UpstreamError;
  /**
   * Delay before the n-th status check (n = 1 for the first check after start), in milliseconds.
   * Default: 2 s, backing off to 10 s. Follow the provider's recommendation.
   */
  pollDelayMs?(checkNumber: number, model: ModelDescriptor): number;

  // Completion webhooks (optional): when AdapterCall.webhookUrl is set, `start` asks the upstream to call it.
  /**
   * Checks a webhook's signature as the provider documents it; throws WebhookRejected when it is not
   * authentic, WebhookUnverifiable when the provider's keys cannot be fetched now. It is only called for
   * an available adapter, and must refuse a request without its signature headers before any network
   * call, and fetch keys at most once per interval whatever the traffic (WebhookKeys in the adapters).
   */
  verifyWebhook?(request: WebhookRequest, signal: AbortSignal): Promise<void>;
  /** Reads a verified webhook body: the upstream job and its state, or null for an event that is not a completion. */
  readWebhook?(payload: JsonValue, call: AdapterCall): WebhookEvent | null;
  /** The upstream job id inside a handle this adapter returned (matches webhooks to tasks). */
  jobIdOf?(handle: JsonValue): string;
}

/**
 * @deprecated The v3 contract, accepted for one release: `start` returns the bare handle. Move to v4 by
 * returning `{ handle, warnings }` from `start` (and dropping any warnings recomputed in `status`).
 */
export interface ProviderAdapterV3 extends Omit<ProviderAdapter, 'specificationVersion' | 'start'> {
  readonly specificationVersion: typeof ADAPTER_SPECIFICATION_VERSION_V3;
  start?(call: AdapterCall): Promise<JsonValue>;
}

/** An adapter of any contract version a host accepts. */
export type AcceptedProviderAdapter = ProviderAdapter | ProviderAdapterV3;

/**
 * The v4 adapter for any accepted one: a v4 adapter as it is, a v3 adapter wrapped (its handle with no
 * start warnings; everything else unchanged, `this` kept). Throws for a version the host does not accept.
 */
export function adaptAcceptedAdapter(adapter: AcceptedProviderAdapter): ProviderAdapter {
  const version: string = adapter.specificationVersion;
  if (version === ADAPTER_SPECIFICATION_VERSION) return adapter as ProviderAdapter;
  if (version !== ADAPTER_SPECIFICATION_VERSION_V3) {
    throw new Error(`adapter ${adapter.providerId} implements ${version}, expected ${ADAPTER_SPECIFICATION_VERSION} (or ${ADAPTER_SPECIFICATION_VERSION_V3} for one release)`);
  }
  const v3 = adapter as ProviderAdapterV3;
  const start = v3.start;
  // Every method bound to the v3 adapter itself (its private state, `#fields` included, stays its own).
  const bound = <K extends 'generate' | 'status' | 'cancel' | 'languageModel' | 'upstreamError' | 'pollDelayMs' | 'verifyWebhook' | 'readWebhook' | 'jobIdOf'>(
    key: K,
  ): Pick<ProviderAdapter, K> => {
    const fn = v3[key] as ((...args: unknown[]) => unknown) | undefined;
    return (fn ? { [key]: fn.bind(v3) } : {}) as Pick<ProviderAdapter, K>;
  };
  return {
    specificationVersion: ADAPTER_SPECIFICATION_VERSION,
    providerId: v3.providerId,
    models: v3.models,
    ...(v3.availability ? { availability: v3.availability } : {}),
    ...(v3.trustedOrigins ? { trustedOrigins: v3.trustedOrigins } : {}),
    isLongRunning: (modelId) => v3.isLongRunning(modelId),
    ...(start ? { start: async (call: AdapterCall): Promise<StartedJob> => ({ handle: await start.call(v3, call), warnings: [] }) } : {}),
    ...bound('generate'),
    ...bound('status'),
    ...bound('cancel'),
    ...bound('languageModel'),
    ...bound('upstreamError'),
    ...bound('pollDelayMs'),
    ...bound('verifyWebhook'),
    ...bound('readWebhook'),
    ...bound('jobIdOf'),
  };
}
