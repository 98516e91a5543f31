import {
  ADAPTER_SPECIFICATION_VERSION,
  UpstreamError,
  type AdapterAvailability,
  type AdapterCall,
  type JsonValue,
  type LongRunningStatus,
  type ModelDescriptor,
  type ProviderAdapter,
} from '@gengate/core';
import { z } from 'zod';
import { backoffMs, callUpstream, mediaTypeFromUrl, originOf, readHandle, withoutTrailingSlash } from '../video-common/index.js';
import { classifyRunwayFailure, runwayTaskRequest } from './runway-mapping.js';
import { RUNWAY_MODELS, type RunwayModel } from './runway-models.js';

export const RUNWAY_SECRET_SETTING = 'RUNWAYML_API_SECRET';
export const RUNWAY_DEFAULT_BASE_URL = 'https://api.dev.runwayml.com';
/** The API version this adapter was written against (the X-Runway-Version header). */
export const RUNWAY_API_VERSION = '2024-11-06';

export interface RunwayAdapterOptions {
  /** RUNWAYML_API_SECRET. Without it the adapter is unavailable (its models stay listed, inactive). */
  readonly apiKey?: string;
  /** Default https://api.dev.runwayml.com. */
  readonly baseURL?: string;
  readonly fetch?: typeof fetch;
  /**
   * Status check schedule. Runway: "Consumers of this API should not expect updates more frequent than once
   * every five seconds for a given task" (default 5 s doubling to 20 s).
   */
  readonly poll?: { readonly firstMs: number; readonly maxMs: number };
}

const handleSchema = z.object({ runwayTaskId: z.string().min(1) });
/** GET /v1/tasks/{id} (Runway API reference; `runwayml/sdk-node` src/resources/tasks.ts). */
const taskSchema = z.object({
  id: z.string(),
  status: z.enum(['PENDING', 'THROTTLED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED']),
  progress: z.number().nullish(),
  output: z.array(z.string()).nullish(),
  failure: z.string().nullish(),
  failureCode: z.string().nullish(),
});

/**
 * Runway's developer API, written directly against its documented HTTP API with fetch (Runway has no AI SDK
 * provider): POST /v1/image_to_video or /v1/text_to_video, GET /v1/tasks/{id}, DELETE /v1/tasks/{id}. Runway
 * has no completion webhooks, so tasks are polled on Runway's recommended schedule.
 */
export class RunwayAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly providerId = 'runway';
  readonly models: readonly ModelDescriptor[] = RUNWAY_MODELS.map((m) => m.descriptor);
  readonly availability: AdapterAvailability;
  readonly trustedOrigins: readonly string[];
  private readonly byId = new Map<string, RunwayModel>(RUNWAY_MODELS.map((m) => [m.descriptor.id, m]));
  private readonly base: string;
  private readonly apiKey: string;
  private readonly fetch: typeof fetch;
  private readonly poll: { readonly firstMs: number; readonly maxMs: number };

  constructor(options: RunwayAdapterOptions = {}) {
    this.base = withoutTrailingSlash(options.baseURL ?? RUNWAY_DEFAULT_BASE_URL);
    this.apiKey = options.apiKey ?? '';
    this.fetch = options.fetch ?? globalThis.fetch;
    this.poll = options.poll ?? { firstMs: 5_000, maxMs: 20_000 };
    this.availability = this.apiKey
      ? { available: true, settings: [RUNWAY_SECRET_SETTING] }
      : { available: false, reason: `Provider runway is not configured: the operator must set ${RUNWAY_SECRET_SETTING}.`, settings: [RUNWAY_SECRET_SETTING] };
    this.trustedOrigins = [originOf(this.base)];
  }

  private request(path: string, signal: AbortSignal, init: { method?: 'GET' | 'POST' | 'DELETE'; body?: unknown } = {}) {
    return callUpstream({
      fetch: this.fetch,
      url: `${this.base}${path}`,
      method: init.method,
      headers: { authorization: `Bearer ${this.apiKey}`, 'x-runway-version': RUNWAY_API_VERSION },
      body: init.body,
      signal,
      classify: (status, detail) => (status === 400 && /moderat|safety/i.test(detail) ? 'content_policy' : undefined),
      secrets: [this.apiKey],
    });
  }

  private model(id: string): RunwayModel {
    const m = this.byId.get(id);
    if (!m) throw new UpstreamError(`Runway does not serve model ${id}`, { kind: 'not_found' });
    return m;
  }

  isLongRunning(modelId: string): boolean {
    return this.byId.has(modelId);
  }

  async start(call: AdapterCall): Promise<JsonValue> {
    if (call.request.modality !== 'video') throw new Error('Runway serves video only');
    const r = runwayTaskRequest(this.model(call.model.id), call.request);
    const res = await this.request(r.path, call.abortSignal, { body: r.body });
    const parsed = z.object({ id: z.string().min(1) }).safeParse(res.json);
    if (!parsed.success) throw new UpstreamError('Runway answered the task creation without an id', { kind: 'bad_output' });
    return { runwayTaskId: parsed.data.id };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const { runwayTaskId } = readHandle(handleSchema, handle, 'Runway');
    const res = await this.request(`/v1/tasks/${encodeURIComponent(runwayTaskId)}`, call.abortSignal);
    const parsed = taskSchema.safeParse(res.json);
    if (!parsed.success) throw new UpstreamError('Runway answered the task in an unexpected shape', { kind: 'bad_output' });
    const t = parsed.data;
    switch (t.status) {
      case 'PENDING':
      case 'THROTTLED':
        return { state: 'running', progress: 0 };
      case 'RUNNING':
        return typeof t.progress === 'number' ? { state: 'running', progress: Math.min(1, Math.max(0, t.progress)) } : { state: 'running' };
      case 'SUCCEEDED': {
        const urls = t.output ?? [];
        if (urls.length === 0) return { state: 'failed', error: new UpstreamError('Runway returned no output', { kind: 'bad_output' }) };
        const warnings = call.request.modality === 'video' ? runwayTaskRequest(this.model(call.model.id), call.request).warnings : [];
        return { state: 'succeeded', result: { files: urls.map((url) => ({ kind: 'url' as const, url, mediaType: mediaTypeFromUrl(url, 'video/mp4') })), warnings } };
      }
      case 'FAILED': {
        const message = [t.failureCode, t.failure].filter(Boolean).join(': ') || 'the task failed';
        return { state: 'failed', error: new UpstreamError(message, { kind: classifyRunwayFailure(t.failureCode) }) };
      }
      case 'CANCELLED':
        return { state: 'failed', error: new UpstreamError('the task was cancelled at Runway', { kind: 'unknown', isRetryable: false }) };
    }
  }

  async cancel(handle: JsonValue, call: AdapterCall): Promise<void> {
    const { runwayTaskId } = readHandle(handleSchema, handle, 'Runway');
    try {
      await this.request(`/v1/tasks/${encodeURIComponent(runwayTaskId)}`, call.abortSignal, { method: 'DELETE' });
    } catch (e) {
      if (UpstreamError.isInstance(e) && e.statusCode === 404) return;
      throw e;
    }
  }

  pollDelayMs(checkNumber: number): number {
    return backoffMs(checkNumber, this.poll.firstMs, this.poll.maxMs);
  }
}

export function createRunwayAdapter(options?: RunwayAdapterOptions): RunwayAdapter {
  return new RunwayAdapter(options);
}
