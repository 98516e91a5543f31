/*
 * A gengate provider adapter for Luma's Dream Machine video API, written against @gengate/core's contract and the
 * adapter kit (@gengate/adapters/kit). Long-running: `POST /dream-machine/v1/generations` answers a Generation
 * {id, state: queued | dreaming | completed | failed, failure_reason, assets.video}; `GET /generations/{id}` reads
 * it again; `DELETE /generations/{id}` drops it (https://docs.lumalabs.ai/reference). Auth: `Authorization: Bearer`.
 * Luma can POST the Generation to a `callback_url`, but documents no signature for it, so this adapter polls
 * (an unsigned webhook cannot be told from a forged one; see docs/writing-an-adapter.md for signed webhooks).
 */
import { ADAPTER_SPECIFICATION_VERSION, UpstreamError } from '@gengate/core/adapter';
import type { AdapterAvailability, AdapterCall, JsonValue, LongRunningStatus, ProviderAdapter, StartedJob } from '@gengate/core/adapter';
import { keyAvailability, mediaTypeFromUrl, ModelTable, pollDelay, readHandle, UpstreamClient, type PollSchedule } from '@gengate/adapters/kit';
import { z } from 'zod';
import { LUMA_MODELS } from './luma-models.js';

export interface LumaAdapterOptions {
  /** LUMAAI_API_KEY. Without it the adapter is unavailable: its models stay listed, inactive. */
  readonly apiKey?: string;
  /** Default https://api.lumalabs.ai (a fake in tests). */
  readonly baseURL?: string;
  /** Status checks: Luma's examples poll every 3 s; default 3 s doubling to 15 s. */
  readonly poll?: PollSchedule;
}

const GENERATIONS = '/dream-machine/v1/generations';
const handleSchema = z.object({ lumaGeneration: z.string().min(1) });
const generation = z.object({
  id: z.string().min(1),
  state: z.enum(['queued', 'dreaming', 'completed', 'failed']),
  failure_reason: z.string().nullish(),
  assets: z.object({ video: z.string().nullish() }).nullish(),
});

/** Luma's 400s name what was refused; a moderation refusal is the user's content, never retried. */
const classify = (status: number, detail: string) => (status === 400 && /moderat|safety|nsfw/i.test(detail) ? 'content_policy' : undefined);

export class LumaAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly providerId = 'luma';
  private readonly table = new ModelTable('Luma', LUMA_MODELS);
  readonly models = this.table.descriptors;
  readonly availability: AdapterAvailability;
  readonly trustedOrigins: readonly string[];
  readonly pollDelayMs: (checkNumber: number) => number;
  private readonly api: UpstreamClient;

  constructor(options: LumaAdapterOptions = {}) {
    const apiKey = options.apiKey ?? '';
    this.availability = keyAvailability('luma', apiKey, 'LUMAAI_API_KEY');
    this.api = new UpstreamClient({ provider: 'Luma', baseURL: options.baseURL ?? 'https://api.lumalabs.ai', headers: { authorization: `Bearer ${apiKey}` }, classify, secrets: [apiKey] });
    this.trustedOrigins = [this.api.origin];
    this.pollDelayMs = pollDelay(options.poll ?? { firstMs: 3_000, maxMs: 15_000 });
  }

  isLongRunning(): boolean {
    return true;
  }

  /** Creates the generation from the generic request; the handle is its id. */
  async start(call: AdapterCall): Promise<StartedJob> {
    const r = call.request;
    if (r.modality !== 'video') throw new UpstreamError('Luma serves video only', { kind: 'invalid_input' });
    const body: Record<string, JsonValue> = {
      prompt: r.prompt ?? '',
      model: this.table.get(call.model.id).lumaModel,
      resolution: r.resolution,
      duration: `${r.duration}s`,
      aspect_ratio: r.aspectRatio,
      ...r.providerParams,
    };
    const first = r.imageUrls[0];
    if (first) body['keyframes'] = { frame0: { type: 'image', url: first } }; // Luma fetches the URL itself
    const created = await this.api.post(GENERATIONS, body, generation, call.abortSignal);
    // Luma takes every generic parameter as it is, so its start has no warnings to report.
    return { handle: { lumaGeneration: created.id }, warnings: [] };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const { lumaGeneration } = readHandle(handleSchema, handle, 'Luma');
    const g = await this.api.get(`${GENERATIONS}/${encodeURIComponent(lumaGeneration)}`, generation, call.abortSignal);
    switch (g.state) {
      case 'queued':
        return { state: 'running', progress: 0 };
      case 'dreaming':
        return { state: 'running' };
      case 'completed': {
        const url = g.assets?.video;
        if (!url) return { state: 'failed', error: new UpstreamError('Luma completed the generation without a video', { kind: 'bad_output' }) };
        return { state: 'succeeded', result: { files: [{ kind: 'url', url, mediaType: mediaTypeFromUrl(url, 'video/mp4') }] } };
      }
      case 'failed': {
        const reason = g.failure_reason ?? 'the generation failed';
        const kind = /moderat|safety|nsfw|prohibited/i.test(reason) ? 'content_policy' : 'server';
        return { state: 'failed', error: new UpstreamError(`Luma: ${reason}`.slice(0, 300), { kind }) };
      }
    }
  }

  /** Luma's way to drop a generation: delete it (a generation already gone is fine). */
  async cancel(handle: JsonValue, call: AdapterCall): Promise<void> {
    const { lumaGeneration } = readHandle(handleSchema, handle, 'Luma');
    try {
      await this.api.call('DELETE', `${GENERATIONS}/${encodeURIComponent(lumaGeneration)}`, call.abortSignal);
    } catch (e) {
      if (!(UpstreamError.isInstance(e) && e.statusCode === 404)) throw e;
    }
  }
}
