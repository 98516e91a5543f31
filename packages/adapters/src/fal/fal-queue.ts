import { UpstreamError, type GenerationResult, type JsonObject, type LongRunningStatus } from '@gengate/core/adapter';
import { z } from 'zod';
import { callUpstream, mediaTypeFromUrl, progressFromLogs, withoutTrailingSlash } from '../kit/index.js';
import { classifyFal } from './fal-mapping.js';

/** Documented answers of fal's queue (https://docs.fal.ai/model-endpoints/queue). */
const submitAnswer = z.object({ request_id: z.string().min(1) });
const statusAnswer = z.object({
  status: z.string(),
  queue_position: z.number().nullish(),
  logs: z.array(z.object({ message: z.string() })).nullish(),
  error: z.string().nullish(),
});
const fileSchema = z.object({ url: z.string(), content_type: z.string().nullish() });
export const falOutputSchema = z.object({
  video: fileSchema.nullish(),
  images: z.array(fileSchema).nullish(),
  image: fileSchema.nullish(),
  has_nsfw_concepts: z.array(z.boolean()).nullish(),
});

export interface FalQueueConfig {
  readonly queueUrl: string;
  readonly apiKey: string;
  readonly fetch: typeof fetch;
}

/** fal's queue API over fetch: submit, status (with logs), result, cancel. Status and result use the app id only. */
export class FalQueue {
  private readonly base: string;
  constructor(private readonly config: FalQueueConfig) {
    this.base = withoutTrailingSlash(config.queueUrl);
  }

  private get headers(): Record<string, string> {
    return { authorization: `Key ${this.config.apiKey}` };
  }

  async submit(modelPath: string, body: JsonObject, webhookUrl: string | null, signal: AbortSignal): Promise<string> {
    const query = webhookUrl ? `?fal_webhook=${encodeURIComponent(webhookUrl)}` : '';
    const res = await callUpstream({ fetch: this.config.fetch, url: `${this.base}/${modelPath}${query}`, headers: this.headers, body, signal, classify: classifyFal, secrets: [this.config.apiKey] });
    const parsed = submitAnswer.safeParse(res.json);
    if (!parsed.success) throw new UpstreamError('fal answered the submission without a request_id', { kind: 'bad_output' });
    return parsed.data.request_id;
  }

  async status(app: string, requestId: string, signal: AbortSignal): Promise<z.infer<typeof statusAnswer>> {
    const res = await callUpstream({ fetch: this.config.fetch, url: `${this.base}/${app}/requests/${requestId}/status?logs=1`, headers: this.headers, signal, classify: classifyFal, secrets: [this.config.apiKey] });
    const parsed = statusAnswer.safeParse(res.json);
    if (!parsed.success) throw new UpstreamError('fal answered the status check in an unexpected shape', { kind: 'bad_output' });
    return parsed.data;
  }

  /**
   * The result of a COMPLETED request. A request that failed answers its result with the failure's status
   * (a 422 for invalid input or a content checker refusal): that is the job's end, not a failed check.
   */
  async result(app: string, requestId: string, signal: AbortSignal): Promise<LongRunningStatus> {
    try {
      const res = await callUpstream({ fetch: this.config.fetch, url: `${this.base}/${app}/requests/${requestId}`, headers: this.headers, signal, classify: classifyFal, secrets: [this.config.apiKey] });
      return { state: 'succeeded', result: falResult(res.json) };
    } catch (e) {
      if (UpstreamError.isInstance(e) && e.statusCode !== null && e.kind !== 'rate_limited' && e.kind !== 'authentication' && e.statusCode !== 404) {
        return { state: 'failed', error: e };
      }
      throw e;
    }
  }

  async cancel(app: string, requestId: string, signal: AbortSignal): Promise<void> {
    try {
      await callUpstream({ fetch: this.config.fetch, url: `${this.base}/${app}/requests/${requestId}/cancel`, method: 'PUT', headers: this.headers, signal, classify: classifyFal, secrets: [this.config.apiKey] });
    } catch (e) {
      // 400 {"status": "ALREADY_COMPLETED"}: nothing left to stop.
      if (UpstreamError.isInstance(e) && e.statusCode === 400) return;
      throw e;
    }
  }
}

/** A running status: IN_QUEUE is 0, IN_PROGRESS reads the percentage the runner logs, when it logs one. */
export function falRunning(status: z.infer<typeof statusAnswer>): LongRunningStatus {
  if (status.status === 'IN_QUEUE') return { state: 'running', progress: 0 };
  const progress = progressFromLogs((status.logs ?? []).map((l) => l.message));
  return progress === null ? { state: 'running' } : { state: 'running', progress };
}

/** A fal model's output (its `video`, `images` or `image`) as files the host downloads. */
export function falResult(output: unknown): GenerationResult {
  const parsed = falOutputSchema.safeParse(output);
  if (!parsed.success) throw new UpstreamError('fal answered the result in an unexpected shape', { kind: 'bad_output' });
  const o = parsed.data;
  if (o.has_nsfw_concepts?.some(Boolean)) throw new UpstreamError('fal flagged the output as NSFW', { kind: 'content_policy' });
  if (o.video) return { files: [{ kind: 'url', url: o.video.url, mediaType: o.video.content_type ?? mediaTypeFromUrl(o.video.url, 'video/mp4') }] };
  const images = o.images ?? (o.image ? [o.image] : []);
  if (images.length === 0) throw new UpstreamError('fal returned no output file', { kind: 'bad_output' });
  return { files: images.map((i) => ({ kind: 'url' as const, url: i.url, mediaType: i.content_type ?? mediaTypeFromUrl(i.url, 'image/png') })) };
}
