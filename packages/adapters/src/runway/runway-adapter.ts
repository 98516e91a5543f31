import {
  ADAPTER_SPECIFICATION_VERSION,
  UpstreamError,
  type AdapterAvailability,
  type AdapterCall,
  type JsonValue,
  type LongRunningStatus,
  type ModelDescriptor,
  type ProviderAdapter,
  type StartedJob,
} from '@gengate/core/adapter';
import { z } from 'zod';
import { fraction, keyAvailability, mediaTypeFromUrl, ModelTable, pollDelay, readHandle, UpstreamClient } from '../kit/index.js';
import { classifyRunwayFailure, runwayTaskRequest } from './runway-mapping.js';
import { RUNWAY_MODELS } from './runway-models.js';

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
  readonly models: readonly ModelDescriptor[];
  readonly availability: AdapterAvailability;
  readonly trustedOrigins: readonly string[];
  readonly pollDelayMs: (checkNumber: number) => number;
  private readonly table = new ModelTable('Runway', RUNWAY_MODELS);
  private readonly api: UpstreamClient;

  constructor(options: RunwayAdapterOptions = {}) {
    const apiKey = options.apiKey ?? '';
    this.models = this.table.descriptors;
    this.availability = keyAvailability('runway', apiKey, RUNWAY_SECRET_SETTING);
    this.api = new UpstreamClient({
      provider: 'Runway',
      baseURL: options.baseURL ?? RUNWAY_DEFAULT_BASE_URL,
      headers: { authorization: `Bearer ${apiKey}`, 'x-runway-version': RUNWAY_API_VERSION },
      ...(options.fetch ? { fetch: options.fetch } : {}),
      classify: (status, detail) => (status === 400 && /moderat|safety/i.test(detail) ? 'content_policy' : undefined),
      secrets: [apiKey],
    });
    this.trustedOrigins = [this.api.origin];
    this.pollDelayMs = pollDelay(options.poll ?? { firstMs: 5_000, maxMs: 20_000 });
  }

  isLongRunning(modelId: string): boolean {
    return this.table.has(modelId);
  }

  /** Creates the task; the mapping's warnings are stored on the task with the handle. */
  async start(call: AdapterCall): Promise<StartedJob> {
    if (call.request.modality !== 'video') throw new Error('Runway serves video only');
    const r = runwayTaskRequest(this.table.get(call.model.id), call.request);
    const { id } = await this.api.post(r.path, r.body, z.object({ id: z.string().min(1) }), call.abortSignal);
    return { handle: { runwayTaskId: id }, warnings: r.warnings };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const { runwayTaskId } = readHandle(handleSchema, handle, 'Runway');
    const t = await this.api.get(`/v1/tasks/${encodeURIComponent(runwayTaskId)}`, taskSchema, call.abortSignal);
    switch (t.status) {
      case 'PENDING':
      case 'THROTTLED':
        return { state: 'running', progress: 0 };
      case 'RUNNING':
        return typeof t.progress === 'number' ? { state: 'running', progress: fraction(t.progress) } : { state: 'running' };
      case 'SUCCEEDED': {
        const urls = t.output ?? [];
        if (urls.length === 0) return { state: 'failed', error: new UpstreamError('Runway returned no output', { kind: 'bad_output' }) };
        return { state: 'succeeded', result: { files: urls.map((url) => ({ kind: 'url' as const, url, mediaType: mediaTypeFromUrl(url, 'video/mp4') })) } };
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
      await this.api.call('DELETE', `/v1/tasks/${encodeURIComponent(runwayTaskId)}`, call.abortSignal);
    } catch (e) {
      if (UpstreamError.isInstance(e) && e.statusCode === 404) return;
      throw e;
    }
  }
}

export function createRunwayAdapter(options?: RunwayAdapterOptions): RunwayAdapter {
  return new RunwayAdapter(options);
}
