import { createGoogleGenerativeAI, type GoogleProvider } from '@ai-sdk/google';
import {
  ADAPTER_SPECIFICATION_VERSION,
  UpstreamError,
  type AdapterAvailability,
  type AdapterCall,
  type GeneratedFile,
  type JsonValue,
  type LongRunningStatus,
  type ModelDescriptor,
  type ProviderAdapter,
  type StartedJob,
} from '@gengate/core/adapter';
import { experimental_getVideoStatus, experimental_startVideo } from 'ai';
import { z } from 'zod';
import { backoffMs, originOf, readHandle, taskWarningsFrom, toUpstreamError, withoutTrailingSlash } from '../kit/index.js';
import { classifyVeoFailure, veoStartOptions } from './veo-mapping.js';
import { VEO_MODELS, type VeoModel } from './veo-models.js';
import { GOOGLE_DEFAULT_BASE_URL, GOOGLE_KEY_SETTING } from '../google/google-models.js';


export interface VeoAdapterOptions {
  /** GOOGLE_GENERATIVE_AI_API_KEY. Without it the adapter is unavailable (its models stay listed, inactive). */
  readonly apiKey?: string;
  /** Default https://generativelanguage.googleapis.com/v1beta. */
  readonly baseURL?: string;
  readonly fetch?: typeof fetch;
  /** Status check schedule (Google's examples poll every 10 s; default 10 s, backing off to 20 s). */
  readonly poll?: { readonly firstMs: number; readonly maxMs: number };
}

/** The SDK's operation reference, persisted as is with the model it belongs to. */
const handleSchema = z.object({ veoModel: z.string().min(1), operation: z.object({ operationName: z.string().min(1) }).passthrough() });

/**
 * Google Veo through @ai-sdk/google's video model and the AI SDK's experimental_startVideo /
 * experimental_getVideoStatus (Gemini API predictLongRunning + operations). Veo offers neither webhooks nor a
 * documented cancel for video operations, so there is no cancel: a cancelled task stops being checked.
 */
export class VeoAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly providerId = 'google';
  readonly models: readonly ModelDescriptor[] = VEO_MODELS.map((m) => m.descriptor);
  readonly availability: AdapterAvailability;
  readonly trustedOrigins: readonly string[];
  private readonly byId = new Map<string, VeoModel>(VEO_MODELS.map((m) => [m.descriptor.id, m]));
  private readonly google: GoogleProvider;
  private readonly secrets: readonly string[];
  private readonly poll: { readonly firstMs: number; readonly maxMs: number };

  constructor(options: VeoAdapterOptions = {}) {
    const baseURL = withoutTrailingSlash(options.baseURL ?? GOOGLE_DEFAULT_BASE_URL);
    const apiKey = options.apiKey ?? '';
    this.secrets = apiKey ? [apiKey] : [];
    this.availability = apiKey
      ? { available: true, settings: [GOOGLE_KEY_SETTING] }
      : { available: false, reason: `Provider google is not configured: the operator must set ${GOOGLE_KEY_SETTING}.`, settings: [GOOGLE_KEY_SETTING] };
    this.trustedOrigins = [originOf(baseURL)];
    this.google = createGoogleGenerativeAI({ apiKey, baseURL, ...(options.fetch ? { fetch: options.fetch } : {}) });
    this.poll = options.poll ?? { firstMs: 10_000, maxMs: 20_000 };
  }

  private model(id: string): VeoModel {
    const m = this.byId.get(id);
    if (!m) throw new UpstreamError(`Google Veo does not serve model ${id}`, { kind: 'not_found' });
    return m;
  }

  isLongRunning(modelId: string): boolean {
    return this.byId.has(modelId);
  }

  /** Starts the operation; the SDK's warnings (settings Veo ignored or adjusted) are stored on the task with the handle. */
  async start(call: AdapterCall): Promise<StartedJob> {
    const req = call.request;
    if (req.modality !== 'video') throw new Error('Veo serves video only');
    const m = this.model(call.model.id);
    const options = veoStartOptions(req);
    // The Gemini API takes the first frame inline: read it through the host's guard and size cap.
    const first = req.imageUrls[0] ? await call.readInput(req.imageUrls[0]) : null;
    try {
      const started = await experimental_startVideo({
        model: this.google.video(m.googleModel),
        prompt: first ? { image: first.data, text: req.prompt ?? '' } : (req.prompt ?? ''),
        n: 1,
        aspectRatio: options.aspectRatio,
        resolution: options.resolution,
        duration: options.duration,
        providerOptions: { google: options.providerOptions.google },
        maxRetries: 0,
        abortSignal: call.abortSignal,
      });
      return { handle: { veoModel: m.googleModel, operation: started.operation } as JsonValue, warnings: taskWarningsFrom(started.warnings, 'video') };
    } catch (err) {
      throw toUpstreamError(err, { secrets: this.secrets, abortSignal: call.abortSignal });
    }
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const h = readHandle(handleSchema, handle, 'Veo');
    let s;
    try {
      s = await experimental_getVideoStatus(this.google.video(h.veoModel), { operation: h.operation as JsonValue, maxRetries: 0, abortSignal: call.abortSignal });
    } catch (err) {
      // A finished operation without samples and without an error: the Gemini API's safety filters removed the
      // video (its raiMediaFilteredReasons, which @ai-sdk/google's schema strips before it throws "No videos").
      const raw = (err as Error | null)?.message ?? '';
      if (!call.abortSignal.aborted && /No videos in response/i.test(raw)) {
        return { state: 'failed', error: new UpstreamError('Veo finished without a video: its safety filters removed the output.', { kind: 'content_policy' }) };
      }
      throw toUpstreamError(err, { secrets: this.secrets, abortSignal: call.abortSignal });
    }
    switch (s.status) {
      case 'pending':
        return { state: 'running' };
      case 'error':
        return { state: 'failed', error: new UpstreamError(s.error.slice(0, 500), { kind: classifyVeoFailure(s.error) }) };
      case 'completed': {
        const files: GeneratedFile[] = [];
        for (const v of s.videos) {
          if (v.type === 'url') files.push({ kind: 'url', url: v.url, mediaType: v.mediaType });
          else if (v.type === 'binary') files.push({ kind: 'bytes', data: v.data, mediaType: v.mediaType });
          else if (v.type === 'base64') files.push({ kind: 'bytes', data: Uint8Array.from(Buffer.from(v.data, 'base64')), mediaType: v.mediaType });
        }
        if (files.length === 0) return { state: 'failed', error: new UpstreamError('Veo returned no video', { kind: 'bad_output' }) };
        return { state: 'succeeded', result: { files } };
      }
    }
  }

  pollDelayMs(checkNumber: number): number {
    return backoffMs(checkNumber, this.poll.firstMs, this.poll.maxMs);
  }
}

export function createVeoAdapter(options?: VeoAdapterOptions): VeoAdapter {
  return new VeoAdapter(options);
}
