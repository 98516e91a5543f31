import { checkStep, isUpstreamError, normalizeRunRequest, PriceBook, type JsonValue, type ModelDescriptor, type RunRequest, type UpstreamError } from '@gengate/core/adapter';
import { describeAdapterConformance, describeOneRequestPerAttempt, FakeVeo, kitCall, runAdapterCall } from '@gengate/testing';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { VeoAdapter } from './veo-adapter.js';
import { veoStartOptions } from './veo-mapping.js';
import { VEO_MODELS } from './veo-models.js';

const KEY = 'AIzaSyFakeVeoKey0123456789abcdefghij';
const fake = await FakeVeo.start({ durationMs: 120 });
afterAll(() => fake.close());

const adapter = () => new VeoAdapter({ apiKey: KEY, baseURL: fake.baseUrl, poll: { firstMs: 20, maxMs: 50 } });
const model = (id: string): ModelDescriptor => {
  const m = VEO_MODELS.find((x) => x.descriptor.id === id);
  if (!m) throw new Error(id);
  return m.descriptor;
};
const call = (id: string, request: RunRequest) => kitCall(model(id), request, AbortSignal.timeout(10_000));

describeAdapterConformance('google veo', {
  adapter,
  upstream: fake.upstream,
  credential: KEY,
  timeoutMs: 10_000,
  cancelUnsupported: 'the Gemini API documents no cancel for Veo video operations',
});
describeOneRequestPerAttempt('google veo', { adapter, upstream: fake.upstream });

describe('veo adapter against the fake Gemini API', () => {
  beforeEach(() => {
    fake.upstream.reset();
    fake.jobs.reset();
  });

  it('starts predictLongRunning through @ai-sdk/google, polls the operation, returns the video URI; the key only in x-goog-api-key', async () => {
    const c = call('google.veo-3-fast', { prompt: 'a koi pond', video_params: { aspect_ratio: '9:16' }, provider_params: { negative_prompt: 'text overlays', person_generation: 'dont_allow' } });
    const result = await runAdapterCall(adapter(), c, 10_000);
    expect(result.files).toHaveLength(1);
    expect(result.files[0]).toMatchObject({ kind: 'url', mediaType: 'video/mp4' });
    const url = result.files[0]?.kind === 'url' ? result.files[0].url : '';
    expect(url.startsWith(`${fake.baseUrl}/files/`)).toBe(true);
    const [start, ...polls] = fake.upstream.calls;
    expect(start).toMatchObject({
      method: 'POST',
      path: '/v1beta/models/veo-3.0-fast-generate-001:predictLongRunning',
      headers: { 'x-goog-api-key': '[credential]' },
      body: { instances: [{ prompt: 'a koi pond' }], parameters: { aspectRatio: '9:16', resolution: '720p', durationSeconds: 8, negativePrompt: 'text overlays', personGeneration: 'dont_allow', sampleCount: 1 } },
    });
    const id = [...fake.jobs.jobs.keys()].at(-1);
    for (const p of polls) expect(p).toMatchObject({ method: 'GET', path: `/v1beta/models/veo-3.0-fast-generate-001/operations/${id}` });
    expect(fake.upstream.calls.every((x) => x.credential === KEY)).toBe(true);
    const download = await fetch(url);
    expect(download.headers.get('content-type')).toBe('video/mp4');
  });

  it('sends a reference image inline as the first frame, read through call.readInput (never fetched by the adapter)', async () => {
    const read: string[] = [];
    const c = { ...call('google.veo-2', { prompt: 'p', video_params: { duration: 6, image_urls: ['https://img.example/first.png'] } }) };
    const spied = { ...c, readInput: async (u: string) => (read.push(u), c.readInput(u)) };
    await adapter().start(spied);
    expect(read).toEqual(['https://img.example/first.png']);
    const [start] = fake.upstream.calls;
    expect(start?.body).toMatchObject({ instances: [{ prompt: 'p', image: { bytesBase64Encoded: expect.any(String), mimeType: 'image/png' } }], parameters: { durationSeconds: 6 } });
  });

  it('survives a restart between start and completion without starting a second operation', async () => {
    const c = call('google.veo-3', { prompt: 'p' });
    const handle = JSON.parse(JSON.stringify((await adapter().start(c)).handle)) as JsonValue;
    const second = adapter();
    let done = false;
    for (let i = 0; i < 400 && !done; i++) {
      done = (await checkStep(second, handle, c)).kind === 'done';
      if (!done) await new Promise((r) => setTimeout(r, 5));
    }
    expect(done).toBe(true);
    expect(fake.jobs.submissions).toBe(1);
  });

  it.each([
    [{ code: 'RAI', message: 'The video was filtered by the safety system.' }, 'content_policy'],
    [{ message: 'Internal error while generating the video' }, 'server'],
  ])('an operation ending in %j is %s', async (failure, kind) => {
    fake.jobs.failNextJobs(failure);
    let caught: unknown = null;
    try {
      await runAdapterCall(adapter(), call('google.veo-3', { prompt: 'x' }), 10_000);
    } catch (e) {
      caught = e;
    }
    expect(isUpstreamError(caught)).toBe(true);
    expect((caught as UpstreamError).kind).toBe(kind);
  });

  it('refuses 1080p in 9:16 before calling Google, and is unavailable without GOOGLE_GENERATIVE_AI_API_KEY', async () => {
    await expect(adapter().start(call('google.veo-3', { prompt: 'p', video_params: { resolution: '1080p', aspect_ratio: '9:16' } }))).rejects.toMatchObject({ kind: 'invalid_input' });
    expect(fake.upstream.calls).toHaveLength(0);
    expect(new VeoAdapter().availability).toEqual({ available: false, reason: expect.stringContaining('GOOGLE_GENERATIVE_AI_API_KEY'), settings: ['GOOGLE_GENERATIVE_AI_API_KEY'] });
    expect(adapter().trustedOrigins).toEqual([fake.url]);
  });
});

describe('veo parameter mapping (table)', () => {
  it.each<[string, RunRequest, Record<string, unknown>]>([
    ['google.veo-3', { prompt: 'p' }, { aspectRatio: '16:9', resolution: '1280x720', duration: 8, providerOptions: { google: {} } }],
    ['google.veo-3', { prompt: 'p', video_params: { resolution: '1080p' } }, { resolution: '1920x1080' }],
    ['google.veo-2', { prompt: 'p', video_params: { duration: 5, aspect_ratio: '9:16' }, provider_params: { negative_prompt: 'blur' } }, { aspectRatio: '9:16', duration: 5, providerOptions: { google: { negativePrompt: 'blur' } } }],
  ])('%s %j', (id, request, options) => {
    const req = normalizeRunRequest(model(id), request);
    if (req.modality !== 'video') throw new Error('video');
    expect(veoStartOptions(req)).toMatchObject(options);
  });

  it.each<[string, RunRequest]>([
    ['google.veo-3', { prompt: 'p', video_params: { duration: 5 } }],
    ['google.veo-2', { prompt: 'p', video_params: { resolution: '1080p' } }],
    ['google.veo-3-fast', { prompt: 'p', video_params: { aspect_ratio: '1:1' } }],
    ['google.veo-3', { prompt: 'p', provider_params: { generate_audio: false } }],
  ])('%s refuses %j before any hold', (id, request) => {
    expect(() => normalizeRunRequest(model(id), request)).toThrow();
  });
});

describe('veo prices through the PriceBook (markup x1.1)', () => {
  const book = new PriceBook({ defaultBp: 11_000, providers: new Map(), models: new Map() });
  it.each<[string, RunRequest, number]>([
    // $0.40/s x 8 s = $3.20 = 320,000,000 micro-credits; x1.1
    ['google.veo-3', { prompt: 'p' }, 352_000_000],
    ['google.veo-3-fast', { prompt: 'p', video_params: { resolution: '1080p' } }, 132_000_000],
    ['google.veo-2', { prompt: 'p', video_params: { duration: 5 } }, 192_500_000],
  ])('%s %j holds %i micro-credits', (id, request, charge) => {
    const m = model(id);
    expect(book.quote(m, normalizeRunRequest(m, request)).chargeMicro).toBe(charge);
  });
});
