import { describe, expect, it } from 'vitest';
import { ModelRegistry } from '../catalog/model-registry.js';
import { runToCompletion } from '../execution/adapter-step.js';
import type { ModelDescriptor } from '../model/model.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import type { JsonValue } from '../util/json.js';
import {
  adaptAcceptedAdapter,
  ADAPTER_SPECIFICATION_VERSION,
  ADAPTER_SPECIFICATION_VERSION_V3,
  type AcceptedProviderAdapter,
  type AdapterCall,
  type LongRunningStatus,
  type ProviderAdapter,
  type ProviderAdapterV3,
} from './provider-adapter.js';

const video: ModelDescriptor = {
  id: 'old.video', name: 'video', provider: 'old', modality: 'video', description: 'd', tags: [], isPopular: false, isActive: true,
  capabilities: { modality: 'video', promptRequired: true, durations: [5], resolutions: ['720p'], aspectRatios: ['16:9'], maxReferenceImages: 0, maxReferenceVideos: 0, supportsWatermark: false, supportsMultiShots: false, supportsTranslation: false },
  pricing: { kind: 'per_second', perSecond: { '720p': 1 } },
};
const call = (): AdapterCall => ({
  taskId: 't', model: video, request: normalizeRunRequest(video, { prompt: 'p' }), abortSignal: AbortSignal.timeout(5_000),
  readInput: () => Promise.reject(new Error('no inputs')), webhookUrl: null,
});
const done: LongRunningStatus = { state: 'succeeded', result: { files: [{ kind: 'url', url: 'https://x.example/v.mp4' }], warnings: [{ param: 'prompt', message: 'from the result' }] } };

/** A v3 adapter as a class with truly private state: the adapted one must call it on the original object. */
class V3Adapter implements ProviderAdapterV3 {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION_V3;
  readonly providerId = 'old';
  readonly models = [video];
  #checks = 0;
  isLongRunning(): boolean {
    return true;
  }
  async start(): Promise<JsonValue> {
    return { job: 'j1' };
  }
  async status(handle: JsonValue): Promise<LongRunningStatus> {
    this.#checks += 1;
    expect(handle).toEqual({ job: 'j1' });
    return this.#checks < 2 ? { state: 'running' } : done;
  }
  pollDelayMs(): number {
    return 1;
  }
}

describe('adapter contract v4, with v3 adapted for one release', () => {
  it('runs a v3 adapter registered as it is: its bare handle becomes { handle, warnings: [] }', async () => {
    const registry = new ModelRegistry([new V3Adapter()]);
    const adapter = registry.adapterFor('old.video');
    expect(adapter.specificationVersion).toBe(ADAPTER_SPECIFICATION_VERSION);
    expect(await adapter.start?.(call())).toEqual({ handle: { job: 'j1' }, warnings: [] });
    const result = await runToCompletion(adapter, call(), { timeoutMs: 5_000 });
    expect(result.files).toEqual(done.state === 'succeeded' ? done.result.files : []);
    expect(result.warnings).toEqual([{ param: 'prompt', message: 'from the result' }]);
  });

  it('passes a v4 adapter through unchanged, and puts its start warnings before the result warnings', async () => {
    const v4: ProviderAdapter = {
      specificationVersion: ADAPTER_SPECIFICATION_VERSION, providerId: 'new', models: [{ ...video, id: 'new.video', provider: 'new' }], isLongRunning: () => true,
      start: async () => ({ handle: 'h', warnings: [{ param: 'video_params.duration', message: 'from the start' }] }),
      status: async () => done,
      pollDelayMs: () => 1,
    };
    expect(adaptAcceptedAdapter(v4)).toBe(v4);
    const result = await runToCompletion(v4, call(), { timeoutMs: 5_000 });
    expect(result.warnings?.map((w) => w.message)).toEqual(['from the start', 'from the result']);
  });

  it('refuses a v2 adapter: its release of grace ended with v3', () => {
    const v2 = { ...new V3Adapter(), specificationVersion: 'gengate.adapter/v2', isLongRunning: () => true } as unknown as AcceptedProviderAdapter;
    expect(() => new ModelRegistry([v2])).toThrow(/implements gengate\.adapter\/v2, expected gengate\.adapter\/v4/);
  });
});
