/*
 * A gengate provider adapter for Black Forest Labs' FLUX image API, written against @gengate/core's contract
 * and the adapter kit (@gengate/adapters/kit). FLUX is long-running: POST /v1/{model} answers {id, polling_url};
 * GET polling_url answers {status, result} with status Pending | Ready | Request Moderated | Content Moderated |
 * Task not found | Error, and result.sample a signed URL valid for ten minutes
 * (https://docs.bfl.ml/flux_models/flux_1_1_pro, https://docs.bfl.ml/api_integration/errors). Auth: `x-key`.
 */
import { ADAPTER_SPECIFICATION_VERSION, sizeForAspectRatio, UpstreamError } from '@gengate/core/adapter';
import type { AdapterAvailability, AdapterCall, JsonValue, LongRunningStatus, ProviderAdapter, StartedJob, TaskWarning } from '@gengate/core/adapter';
import { fraction, keyAvailability, ModelTable, readHandle, UpstreamClient } from '@gengate/adapters/kit';
import { z } from 'zod';
import { FLUX_MODELS } from './flux-models.js';

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
  private readonly table = new ModelTable('Black Forest Labs', FLUX_MODELS);
  readonly models = this.table.descriptors;
  readonly availability: AdapterAvailability;
  readonly trustedOrigins: readonly string[];
  private readonly api: UpstreamClient;

  constructor(options: FluxAdapterOptions = {}) {
    const apiKey = options.apiKey ?? '';
    this.availability = keyAvailability('bfl', apiKey, 'BFL_API_KEY');
    this.api = new UpstreamClient({ provider: 'Black Forest Labs', baseURL: options.baseURL ?? 'https://api.bfl.ai', headers: { 'x-key': apiKey }, secrets: [apiKey] });
    this.trustedOrigins = [this.api.origin];
  }

  isLongRunning(): boolean {
    return true;
  }

  /** Submits the generic request as BFL's body; what BFL cannot honour is reported, never dropped. */
  async start(call: AdapterCall): Promise<StartedJob> {
    const r = call.request;
    if (r.modality !== 'image') throw new UpstreamError('Black Forest Labs serves images only', { kind: 'invalid_input' });
    const m = this.table.get(call.model.id);
    const body: Record<string, JsonValue> = { prompt: r.prompt ?? '', ...r.providerParams };
    const warnings: TaskWarning[] = [];
    if (r.seed !== null) body['seed'] = r.seed;
    if (m.sizing === 'dimensions') {
      Object.assign(body, { width: r.width, height: r.height });
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
    const job = await this.api.post(`/v1/${m.endpoint}`, body, submitted, call.abortSignal);
    return { handle: { id: job.id, pollingUrl: job.polling_url }, warnings };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const h = readHandle(handleSchema, handle, 'Black Forest Labs');
    const { status, progress, result: out, details } = await this.api.get(h.pollingUrl, result, call.abortSignal);
    const fail = (kind: UpstreamError['kind'], message: string): LongRunningStatus => ({ state: 'failed', error: new UpstreamError(message, { kind }) });
    switch (status) {
      case 'Pending':
        return typeof progress === 'number' ? { state: 'running', progress: fraction(progress) } : { state: 'running' };
      case 'Ready': {
        if (!out) return fail('bad_output', 'Black Forest Labs reported Ready without a result');
        const mediaType = call.request.providerParams['output_format'] === 'png' ? 'image/png' : 'image/jpeg';
        return { state: 'succeeded', result: { files: [{ kind: 'url', url: out.sample, mediaType }] } };
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
