import { createFal, type FalProvider } from '@ai-sdk/fal';
import {
  ADAPTER_SPECIFICATION_VERSION,
  UpstreamError,
  type AdapterAvailability,
  type AdapterCall,
  type GenerationResult,
  type JsonValue,
  type LongRunningStatus,
  type ModelDescriptor,
  type ProviderAdapter,
  type StartedJob,
  type WebhookEvent,
  type WebhookRequest,
} from '@gengate/core/adapter';
import { z } from 'zod';
import { backoffMs, originOf, readHandle, withoutTrailingSlash } from '../kit/index.js';
import { generateFalImage } from './fal-image.js';
import { falAppId, falVideoSubmission } from './fal-mapping.js';
import { FAL_MODELS, type FalModel } from './fal-models.js';
import { FalQueue, falRunning } from './fal-queue.js';
import { FAL_JWKS_URL, FalWebhookVerifier, readFalWebhook } from './fal-webhook.js';

export const FAL_KEY_SETTING = 'FAL_KEY';
export const FAL_DEFAULT_RUN_URL = 'https://fal.run';
export const FAL_DEFAULT_QUEUE_URL = 'https://queue.fal.run';

export interface FalAdapterOptions {
  /** FAL_KEY. Without it the adapter is unavailable (its models stay listed, inactive). */
  readonly apiKey?: string;
  /** Synchronous runs (images), default https://fal.run. */
  readonly baseURL?: string;
  /** The queue (video), default https://queue.fal.run. */
  readonly queueURL?: string;
  /** fal's webhook key set, default https://rest.alpha.fal.ai/.well-known/jwks.json. */
  readonly jwksUrl?: string;
  readonly fetch?: typeof fetch;
  /** Status check schedule: first delay and the cap it backs off to (default 2 s doubling to 15 s). */
  readonly poll?: { readonly firstMs: number; readonly maxMs: number };
  readonly now?: () => number;
}

/** What the worker persists for a queued request: enough to check, fetch and cancel it from any process. */
const handleSchema = z.object({ falRequestId: z.string().min(1), app: z.string().min(1), modelPath: z.string().min(1) });
type FalHandle = z.infer<typeof handleSchema>;

/**
 * fal.ai: video through fal's queue API (submit, status with logs, result, cancel, `fal_webhook` completion
 * webhooks signed with ED25519), images through @ai-sdk/fal's synchronous image model.
 */
export class FalAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly providerId = 'fal';
  readonly models: readonly ModelDescriptor[] = FAL_MODELS.map((m) => m.descriptor);
  readonly availability: AdapterAvailability;
  readonly trustedOrigins: readonly string[];
  private readonly byId = new Map<string, FalModel>(FAL_MODELS.map((m) => [m.descriptor.id, m]));
  private readonly queue: FalQueue;
  private readonly sdk: FalProvider;
  private readonly verifier: FalWebhookVerifier;
  private readonly poll: { readonly firstMs: number; readonly maxMs: number };
  private readonly secrets: readonly string[];

  constructor(options: FalAdapterOptions = {}) {
    const fetchImpl = options.fetch ?? globalThis.fetch;
    const runUrl = withoutTrailingSlash(options.baseURL ?? FAL_DEFAULT_RUN_URL);
    const queueUrl = withoutTrailingSlash(options.queueURL ?? FAL_DEFAULT_QUEUE_URL);
    const apiKey = options.apiKey ?? '';
    this.secrets = apiKey ? [apiKey] : [];
    this.availability = apiKey
      ? { available: true, settings: [FAL_KEY_SETTING] }
      : { available: false, reason: `Provider fal is not configured: the operator must set ${FAL_KEY_SETTING}.`, settings: [FAL_KEY_SETTING] };
    this.trustedOrigins = [...new Set([originOf(runUrl), originOf(queueUrl)])];
    this.queue = new FalQueue({ queueUrl, apiKey, fetch: fetchImpl });
    this.sdk = createFal({ apiKey, baseURL: runUrl, fetch: fetchImpl });
    this.verifier = new FalWebhookVerifier({ jwksUrl: options.jwksUrl ?? FAL_JWKS_URL, fetch: fetchImpl, now: options.now });
    this.poll = options.poll ?? { firstMs: 2_000, maxMs: 15_000 };
  }

  private model(id: string): FalModel {
    const m = this.byId.get(id);
    if (!m) throw new UpstreamError(`fal does not serve model ${id}`, { kind: 'not_found' });
    return m;
  }

  isLongRunning(modelId: string): boolean {
    return this.byId.get(modelId)?.endpoint.kind === 'video';
  }

  async generate(call: AdapterCall): Promise<GenerationResult> {
    const m = this.model(call.model.id);
    if (m.endpoint.kind !== 'image' || call.request.modality !== 'image') throw new Error(`${call.model.id} is long-running: use start/status`);
    return generateFalImage(this.sdk, m.endpoint.modelPath, call, this.secrets);
  }

  /** Submits to the queue; the mapping's warnings are stored on the task with the handle. */
  async start(call: AdapterCall): Promise<StartedJob> {
    const m = this.model(call.model.id);
    if (m.endpoint.kind !== 'video' || call.request.modality !== 'video') throw new Error(`${call.model.id} is not a queued video model`);
    const submission = falVideoSubmission(m.endpoint, call.request);
    const falRequestId = await this.queue.submit(submission.modelPath, submission.body, call.webhookUrl, call.abortSignal);
    const handle: FalHandle = { falRequestId, app: falAppId(submission.modelPath), modelPath: submission.modelPath };
    return { handle, warnings: submission.warnings };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const h = readHandle(handleSchema, handle, 'fal');
    const s = await this.queue.status(h.app, h.falRequestId, call.abortSignal);
    if (s.status !== 'COMPLETED') return falRunning(s);
    return this.queue.result(h.app, h.falRequestId, call.abortSignal);
  }

  async cancel(handle: JsonValue, call: AdapterCall): Promise<void> {
    const h = readHandle(handleSchema, handle, 'fal');
    await this.queue.cancel(h.app, h.falRequestId, call.abortSignal);
  }

  pollDelayMs(checkNumber: number): number {
    return backoffMs(checkNumber, this.poll.firstMs, this.poll.maxMs);
  }

  verifyWebhook(request: WebhookRequest): Promise<void> {
    return this.verifier.verify(request);
  }

  readWebhook(payload: JsonValue): WebhookEvent | null {
    return readFalWebhook(payload);
  }

  jobIdOf(handle: JsonValue): string {
    return readHandle(handleSchema, handle, 'fal').falRequestId;
  }
}

export function createFalAdapter(options?: FalAdapterOptions): FalAdapter {
  return new FalAdapter(options);
}
