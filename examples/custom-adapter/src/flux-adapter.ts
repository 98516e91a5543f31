/*
 * A gengate provider adapter for Black Forest Labs' FLUX API, written against the public API of @gengate/core.
 * FLUX is long-running: POST /v1/{model} answers {id, polling_url}; GET polling_url answers {status, result}
 * with status Pending | Ready | Request Moderated | Content Moderated | Task not found | Error, and
 * result.sample a signed URL valid for ten minutes (https://docs.bfl.ml/flux_models/flux_1_1_pro,
 * https://docs.bfl.ml/api_integration/errors). Authentication is the `x-key` header.
 */
import { ADAPTER_SPECIFICATION_VERSION, redactSecrets, sizeForAspectRatio, UpstreamError, upstreamErrorFromNetwork, upstreamErrorFromResponse } from '@gengate/core';
import type { AdapterAvailability, AdapterCall, JsonValue, LongRunningStatus, ProviderAdapter, TaskWarning } from '@gengate/core';
import { z } from 'zod';
import { FLUX_MODELS, type FluxModel } from './flux-models.js';

export interface FluxAdapterOptions {
  /** BFL_API_KEY. Without it the adapter is unavailable: its models stay listed, inactive. */
  readonly apiKey?: string;
  /** Default https://api.bfl.ai (a fake in tests). */
  readonly baseURL?: string;
}

const handleSchema = z.object({ id: z.string().min(1), pollingUrl: z.url() });
const submitted = z.object({ id: z.string().min(1), polling_url: z.url() });
const result = z.object({ status: z.string(), progress: z.number().nullish(), result: z.object({ sample: z.url() }).nullish(), details: z.unknown().optional() });

export class FluxAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly providerId = 'bfl';
  readonly models = FLUX_MODELS.map((m) => m.descriptor);
  readonly availability: AdapterAvailability;
  readonly trustedOrigins: readonly string[];
  private readonly base: string;
  private readonly apiKey: string;

  constructor(options: FluxAdapterOptions = {}) {
    this.base = (options.baseURL ?? 'https://api.bfl.ai').replace(/\/+$/, '');
    this.apiKey = options.apiKey ?? '';
    this.trustedOrigins = [new URL(this.base).origin];
    this.availability = this.apiKey
      ? { available: true, settings: ['BFL_API_KEY'] }
      : { available: false, reason: 'Provider bfl is not configured: the operator must set BFL_API_KEY.', settings: ['BFL_API_KEY'] };
  }

  isLongRunning(): boolean {
    return true;
  }

  /** One call to BFL: JSON in and out, failures classified (never retried here: the worker decides). */
  private async request(url: string, signal: AbortSignal, body?: Record<string, JsonValue>): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(url, {
        method: body ? 'POST' : 'GET',
        headers: { 'x-key': this.apiKey, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal,
      });
    } catch (err) {
      throw signal.aborted ? (signal.reason ?? err) : upstreamErrorFromNetwork(err);
    }
    const text = await res.text();
    if (!res.ok) throw upstreamErrorFromResponse({ status: res.status, headers: res.headers, body: redactSecrets(text, [this.apiKey]) });
    try {
      return JSON.parse(text) as unknown;
    } catch (cause) {
      throw new UpstreamError('Black Forest Labs answered with invalid JSON', { kind: 'bad_output', cause });
    }
  }

  private model(id: string): FluxModel {
    const m = FLUX_MODELS.find((x) => x.descriptor.id === id);
    if (!m) throw new UpstreamError(`Black Forest Labs does not serve ${id}`, { kind: 'not_found' });
    return m;
  }

  /** The generic request as BFL's body, and what could not be honoured (reported, never dropped). */
  private async body(call: AdapterCall): Promise<{ body: Record<string, JsonValue>; warnings: TaskWarning[] }> {
    const r = call.request;
    if (r.modality !== 'image') throw new UpstreamError('Black Forest Labs serves images only', { kind: 'invalid_input' });
    const m = this.model(call.model.id);
    const body: Record<string, JsonValue> = { prompt: r.prompt ?? '', ...r.providerParams };
    const warnings: TaskWarning[] = [];
    if (r.seed !== null) body['seed'] = r.seed;
    if (m.sizing === 'dimensions') {
      body['width'] = r.width;
      body['height'] = r.height;
    } else {
      body['aspect_ratio'] = r.aspectRatio;
      const usual = sizeForAspectRatio(r.aspectRatio, 1024, 16);
      if (usual.width !== r.width || usual.height !== r.height) {
        warnings.push({ param: 'image_params.width', message: `${m.descriptor.name} renders about one megapixel at aspect ratio ${r.aspectRatio}; width and height set only the ratio.` });
      }
    }
    const reference = r.imageUrls[0];
    if (reference && m.sizing === 'dimensions') {
      // FLUX1.1 [pro] takes its image prompt as base64 bytes: read through the host's guard, never fetched here.
      body['image_prompt'] = Buffer.from((await call.readInput(reference)).data).toString('base64');
    } else if (reference) {
      body['input_image'] = reference; // Kontext takes a URL as it is
    }
    return { body, warnings };
  }

  async start(call: AdapterCall): Promise<JsonValue> {
    const { body } = await this.body(call);
    const parsed = submitted.safeParse(await this.request(`${this.base}/v1/${this.model(call.model.id).endpoint}`, call.abortSignal, body));
    if (!parsed.success) throw new UpstreamError('Black Forest Labs answered the submission without an id', { kind: 'bad_output' });
    return { id: parsed.data.id, pollingUrl: parsed.data.polling_url };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const h = handleSchema.safeParse(handle);
    if (!h.success) throw new UpstreamError('not a Black Forest Labs handle', { kind: 'bad_output', isRetryable: false });
    const parsed = result.safeParse(await this.request(h.data.pollingUrl, call.abortSignal));
    if (!parsed.success) throw new UpstreamError('Black Forest Labs answered get_result in an unexpected shape', { kind: 'bad_output' });
    const { status, progress, result: out, details } = parsed.data;
    const fail = (kind: UpstreamError['kind'], message: string): LongRunningStatus => ({ state: 'failed', error: new UpstreamError(message, { kind }) });
    switch (status) {
      case 'Pending':
        return typeof progress === 'number' ? { state: 'running', progress: Math.min(1, Math.max(0, progress)) } : { state: 'running' };
      case 'Ready': {
        if (!out) return fail('bad_output', 'Black Forest Labs reported Ready without a result');
        const { warnings } = await this.body(call);
        const mediaType = call.request.providerParams['output_format'] === 'png' ? 'image/png' : 'image/jpeg';
        return { state: 'succeeded', result: { files: [{ kind: 'url', url: out.sample, mediaType }], warnings } };
      }
      case 'Request Moderated':
      case 'Content Moderated':
        return fail('content_policy', `${status} by Black Forest Labs${details ? `: ${JSON.stringify(details).slice(0, 300)}` : ''}`);
      case 'Task not found':
        return fail('not_found', 'Black Forest Labs no longer knows this task (results expire)');
      default:
        return fail('server', `Black Forest Labs failed the task (${status})`);
    }
  }

  /** BFL's examples poll every half second; back off to 2 s for slow jobs. */
  pollDelayMs(checkNumber: number): number {
    return Math.min(2_000, 500 * checkNumber);
  }
}
