import { createReplicate, type ReplicateProvider } from '@ai-sdk/replicate';
import {
  ADAPTER_SPECIFICATION_VERSION,
  UpstreamError,
  WebhookRejected,
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
import { backoffMs, originOf, readHandle, WebhookKeys, withoutTrailingSlash } from '../kit/index.js';
import { generateReplicateImage } from './replicate-image.js';
import { replicateVideoInput } from './replicate-mapping.js';
import { REPLICATE_MODELS, type ReplicateModel } from './replicate-models.js';
import { predictionStatus, ReplicatePredictions } from './replicate-predictions.js';
import { readReplicateWebhook, replicateSignatureHeaders, verifyReplicateWebhook } from './replicate-webhook.js';

export const REPLICATE_TOKEN_SETTING = 'REPLICATE_API_TOKEN';
export const REPLICATE_DEFAULT_BASE_URL = 'https://api.replicate.com/v1';

export interface ReplicateAdapterOptions {
  /** REPLICATE_API_TOKEN. Without it the adapter is unavailable (its models stay listed, inactive). */
  readonly apiKey?: string;
  /** Default https://api.replicate.com/v1. */
  readonly baseURL?: string;
  /**
   * REPLICATE_WEBHOOK_SECRET (`whsec_...`). When absent, the account's default secret is fetched from
   * GET /v1/webhooks/default/secret with the API token when a signed webhook first arrives, kept in memory,
   * and fetched again (after a signature mismatch, or a failed fetch) at most once a minute.
   */
  readonly webhookSecret?: string;
  /** The clock of the secret's fetch interval; default Date.now. */
  readonly now?: () => number;
  readonly fetch?: typeof fetch;
  /** Status check schedule: first delay and the cap it backs off to (default 2 s doubling to 15 s). */
  readonly poll?: { readonly firstMs: number; readonly maxMs: number };
}

const handleSchema = z.object({ predictionId: z.string().min(1), model: z.string().min(1) });
type ReplicateHandle = z.infer<typeof handleSchema>;

/**
 * Replicate: video as predictions over Replicate's HTTP API (create with a `completed` webhook, get with
 * progress from the logs, cancel), images through @ai-sdk/replicate. Webhooks are verified with the
 * Standard Webhooks scheme Replicate documents.
 */
export class ReplicateAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly providerId = 'replicate';
  readonly models: readonly ModelDescriptor[] = REPLICATE_MODELS.map((m) => m.descriptor);
  readonly availability: AdapterAvailability;
  readonly trustedOrigins: readonly string[];
  private readonly byId = new Map<string, ReplicateModel>(REPLICATE_MODELS.map((m) => [m.descriptor.id, m]));
  private readonly predictions: ReplicatePredictions;
  private readonly sdk: ReplicateProvider;
  private readonly secrets: readonly string[];
  private readonly poll: { readonly firstMs: number; readonly maxMs: number };
  private readonly webhookSecret: string | null;
  private readonly fetchedSecret: WebhookKeys<string>;

  constructor(options: ReplicateAdapterOptions = {}) {
    const fetchImpl = options.fetch ?? globalThis.fetch;
    const baseUrl = withoutTrailingSlash(options.baseURL ?? REPLICATE_DEFAULT_BASE_URL);
    const apiToken = options.apiKey ?? '';
    this.secrets = [apiToken, options.webhookSecret ?? ''].filter((s) => s.length > 0);
    this.availability = apiToken
      ? { available: true, settings: [REPLICATE_TOKEN_SETTING] }
      : { available: false, reason: `Provider replicate is not configured: the operator must set ${REPLICATE_TOKEN_SETTING}.`, settings: [REPLICATE_TOKEN_SETTING] };
    this.trustedOrigins = [originOf(baseUrl)];
    this.predictions = new ReplicatePredictions({ baseUrl, apiToken, fetch: fetchImpl });
    this.sdk = createReplicate({ apiToken, baseURL: baseUrl, fetch: fetchImpl });
    this.poll = options.poll ?? { firstMs: 2_000, maxMs: 15_000 };
    this.webhookSecret = options.webhookSecret ?? null;
    this.fetchedSecret = new WebhookKeys({
      what: "Replicate's webhook secret",
      fetch: () => this.predictions.defaultWebhookSecret(AbortSignal.timeout(10_000)),
      ...(options.now ? { now: options.now } : {}),
    });
  }

  private model(id: string): ReplicateModel {
    const m = this.byId.get(id);
    if (!m) throw new UpstreamError(`Replicate does not serve model ${id}`, { kind: 'not_found' });
    return m;
  }

  isLongRunning(modelId: string): boolean {
    return this.byId.get(modelId)?.kind === 'video';
  }

  async generate(call: AdapterCall): Promise<GenerationResult> {
    const m = this.model(call.model.id);
    if (m.kind !== 'image') throw new Error(`${call.model.id} is long-running: use start/status`);
    return generateReplicateImage(this.sdk, m.replicateModel, call, this.secrets);
  }

  /** Creates the prediction; the mapping's warnings are stored on the task with the handle. */
  async start(call: AdapterCall): Promise<StartedJob> {
    const m = this.model(call.model.id);
    if (m.kind !== 'video' || call.request.modality !== 'video') throw new Error(`${call.model.id} is not a video model`);
    const { input, warnings } = replicateVideoInput(m.replicateModel, call.request);
    const p = await this.predictions.create(m.replicateModel, input, call.webhookUrl, call.abortSignal);
    const handle: ReplicateHandle = { predictionId: p.id, model: m.replicateModel };
    return { handle, warnings };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const h = readHandle(handleSchema, handle, 'Replicate');
    return predictionStatus(await this.predictions.get(h.predictionId, call.abortSignal), 'video');
  }

  async cancel(handle: JsonValue, call: AdapterCall): Promise<void> {
    const h = readHandle(handleSchema, handle, 'Replicate');
    await this.predictions.cancel(h.predictionId, call.abortSignal);
  }

  pollDelayMs(checkNumber: number): number {
    return backoffMs(checkNumber, this.poll.firstMs, this.poll.maxMs);
  }

  async verifyWebhook(request: WebhookRequest): Promise<void> {
    replicateSignatureHeaders(request); // a request without them never causes a fetch
    if (this.webhookSecret !== null) return verifyReplicateWebhook(this.webhookSecret, request);
    const secret = await this.fetchedSecret.get();
    try {
      verifyReplicateWebhook(secret, request);
    } catch (err) {
      // A rotated secret: fetched again at most once per interval, however many forged requests arrive.
      const fresh = err instanceof WebhookRejected ? await this.fetchedSecret.get({ refresh: true }) : secret;
      if (fresh === secret) throw err;
      verifyReplicateWebhook(fresh, request);
    }
  }

  readWebhook(payload: JsonValue): WebhookEvent | null {
    return readReplicateWebhook(payload, 'video');
  }

  jobIdOf(handle: JsonValue): string {
    return readHandle(handleSchema, handle, 'Replicate').predictionId;
  }
}

export function createReplicateAdapter(options?: ReplicateAdapterOptions): ReplicateAdapter {
  return new ReplicateAdapter(options);
}
