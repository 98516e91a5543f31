import { UpstreamError, type GenerationResult, type JsonObject, type LongRunningStatus } from '@gengate/core/adapter';
import { z } from 'zod';
import { callUpstream, mediaTypeFromUrl, progressFromLogs, withoutTrailingSlash } from '../kit/index.js';
import { classifyReplicateFailure } from './replicate-mapping.js';

/** The documented prediction object (https://replicate.com/docs/reference/http#predictions.get). */
export const predictionSchema = z.object({
  id: z.string().min(1),
  status: z.enum(['starting', 'processing', 'succeeded', 'failed', 'canceled', 'aborted']),
  output: z.unknown().optional(),
  error: z.unknown().optional(),
  logs: z.string().nullish(),
  metrics: z.object({ predict_time: z.number().nullish() }).passthrough().nullish(),
});
export type Prediction = z.infer<typeof predictionSchema>;

export interface ReplicateClientConfig {
  readonly baseUrl: string;
  readonly apiToken: string;
  readonly fetch: typeof fetch;
}

/** Replicate's predictions API over fetch: create (with a completion webhook), get, cancel. No `Prefer: wait` for long jobs. */
export class ReplicatePredictions {
  private readonly base: string;
  constructor(private readonly config: ReplicateClientConfig) {
    this.base = withoutTrailingSlash(config.baseUrl);
  }

  private request(path: string, signal: AbortSignal, body?: unknown) {
    return callUpstream({
      fetch: this.config.fetch,
      url: `${this.base}${path}`,
      headers: { authorization: `Bearer ${this.config.apiToken}` },
      body,
      signal,
      secrets: [this.config.apiToken],
    });
  }

  async create(model: string, input: JsonObject, webhookUrl: string | null, signal: AbortSignal): Promise<Prediction> {
    const body = { input, ...(webhookUrl ? { webhook: webhookUrl, webhook_events_filter: ['completed'] } : {}) };
    return parsePrediction((await this.request(`/models/${model}/predictions`, signal, body)).json);
  }

  async get(id: string, signal: AbortSignal): Promise<Prediction> {
    return parsePrediction((await this.request(`/predictions/${encodeURIComponent(id)}`, signal)).json);
  }

  async cancel(id: string, signal: AbortSignal): Promise<void> {
    await this.request(`/predictions/${encodeURIComponent(id)}/cancel`, signal, {});
  }

  /** The account's default webhook signing secret (GET /v1/webhooks/default/secret). */
  async defaultWebhookSecret(signal: AbortSignal): Promise<string> {
    const parsed = z.object({ key: z.string().startsWith('whsec_') }).safeParse((await this.request('/webhooks/default/secret', signal)).json);
    if (!parsed.success) throw new UpstreamError('Replicate answered the webhook secret in an unexpected shape', { kind: 'bad_output' });
    return parsed.data.key;
  }
}

export function parsePrediction(json: unknown): Prediction {
  const parsed = predictionSchema.safeParse(json);
  if (!parsed.success) throw new UpstreamError('Replicate answered with something that is not a prediction', { kind: 'bad_output' });
  return parsed.data;
}

/** A prediction as the contract's status: running with progress from its logs, or its end. */
export function predictionStatus(p: Prediction, kind: 'video' | 'image'): LongRunningStatus {
  switch (p.status) {
    case 'starting':
      return { state: 'running', progress: 0 };
    case 'processing': {
      const progress = progressFromLogs((p.logs ?? '').split('\n'));
      return progress === null ? { state: 'running' } : { state: 'running', progress };
    }
    case 'succeeded':
      return { state: 'succeeded', result: predictionResult(p, kind) };
    case 'failed': {
      const message = typeof p.error === 'string' ? p.error : JSON.stringify(p.error ?? 'the prediction failed');
      return { state: 'failed', error: new UpstreamError(message.slice(0, 500), { kind: classifyReplicateFailure(message) }) };
    }
    case 'canceled':
    case 'aborted':
      return { state: 'failed', error: new UpstreamError(`the prediction was ${p.status}`, { kind: 'unknown', isRetryable: false }) };
  }
}

function predictionResult(p: Prediction, kind: 'video' | 'image'): GenerationResult {
  const urls = (Array.isArray(p.output) ? p.output : [p.output]).filter((u): u is string => typeof u === 'string' && u.length > 0);
  if (urls.length === 0) throw new UpstreamError('Replicate returned no output file', { kind: 'bad_output' });
  const fallback = kind === 'video' ? 'video/mp4' : 'image/png';
  return { files: urls.map((url) => ({ kind: 'url' as const, url, mediaType: mediaTypeFromUrl(url, fallback) })) };
}
