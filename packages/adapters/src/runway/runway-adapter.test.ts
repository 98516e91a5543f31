import { checkStep, isUpstreamError, normalizeRunRequest, PriceBook, type JsonValue, type ModelDescriptor, type RunRequest, type UpstreamError } from '@gengate/core/adapter';
import { describeAdapterConformance, describeOneRequestPerAttempt, FakeRunway, kitCall, minimalRequest, runAdapterCall } from '@gengate/testing';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { RunwayAdapter } from './runway-adapter.js';
import { runwayTaskRequest } from './runway-mapping.js';
import { RUNWAY_MODELS } from './runway-models.js';

const SECRET = 'key_runway_test_0123456789abcdef';
const fake = await FakeRunway.start({ durationMs: 120 });
afterAll(() => fake.close());

const adapter = () => new RunwayAdapter({ apiKey: SECRET, baseURL: fake.url, poll: { firstMs: 20, maxMs: 50 } });
const entry = (id: string) => {
  const m = RUNWAY_MODELS.find((x) => x.descriptor.id === id);
  if (!m) throw new Error(id);
  return m;
};
const model = (id: string): ModelDescriptor => entry(id).descriptor;
const call = (id: string, request: RunRequest) => kitCall(model(id), request, AbortSignal.timeout(10_000));
/** Gen-4 Turbo is image-to-video only. */
const requestFor = (m: ModelDescriptor): RunRequest =>
  m.id === 'runway.gen4-turbo' ? { ...minimalRequest(m), video_params: { duration: 5, image_urls: ['https://img.example/first.png'] } } : minimalRequest(m);

describeAdapterConformance('runway', { adapter, upstream: fake.upstream, cancelsSeen: () => fake.jobs.cancelRequests, credential: SECRET, requestFor, timeoutMs: 10_000 });
describeOneRequestPerAttempt('runway', { adapter, upstream: fake.upstream, requestFor });

describe('runway adapter against the fake Runway API', () => {
  beforeEach(() => {
    fake.upstream.reset();
    fake.jobs.reset();
  });

  it('creates a task with the version header, polls GET /v1/tasks/{id} and returns its output, the secret only in Authorization', async () => {
    const c = call('runway.gen4.5', { prompt: 'a paper boat', video_params: { duration: 7, aspect_ratio: '9:16' }, provider_params: { seed: 11 } });
    const result = await runAdapterCall(adapter(), c, 10_000);
    expect(result.files).toEqual([{ kind: 'url', url: expect.stringMatching(/\/files\/[0-9a-f-]+\.mp4$/), mediaType: 'video/mp4' }]);
    const [create, ...polls] = fake.upstream.calls;
    expect(create).toMatchObject({
      method: 'POST',
      path: '/v1/text_to_video',
      headers: { authorization: '[credential]', 'x-runway-version': '2024-11-06', 'content-type': 'application/json' },
      body: { model: 'gen4.5', promptText: 'a paper boat', ratio: '720:1280', duration: 7, seed: 11 },
    });
    const id = [...fake.jobs.jobs.keys()].at(-1);
    for (const p of polls) expect(p).toMatchObject({ method: 'GET', path: `/v1/tasks/${id}`, headers: { 'x-runway-version': '2024-11-06' } });
    expect(fake.upstream.calls.every((x) => x.credential === `Bearer ${SECRET}`)).toBe(true);
  });

  it('reports RUNNING progress and survives a restart without creating a second task', async () => {
    const c = call('runway.gen4-turbo', { prompt: 'p', video_params: { image_urls: ['https://img.example/a.png'] } });
    const handle = JSON.parse(JSON.stringify((await adapter().start(c)).handle)) as JsonValue;
    const second = adapter();
    let progress = 0;
    let done = false;
    for (let i = 0; i < 400 && !done; i++) {
      const step = await checkStep(second, handle, c);
      if (step.kind === 'running' && step.progress !== null) progress = Math.max(progress, step.progress);
      done = step.kind === 'done';
      if (!done) await new Promise((r) => setTimeout(r, 5));
    }
    expect(done).toBe(true);
    expect(progress).toBeGreaterThan(0);
    expect(fake.jobs.submissions).toBe(1);
    expect(fake.upstream.callsTo('POST', /^\/v1\/image_to_video$/)).toHaveLength(1);
  });

  it('reports the mapping\'s warnings once, from start (stored on the task with the handle), never again at status', async () => {
    const c = call('runway.veo3', { prompt: 'p', video_params: { resolution: '1080p', image_urls: ['https://i.example/b.png'] } });
    const a = adapter();
    const started = await a.start(c);
    expect(started.warnings.map((w) => w.param)).toEqual(['video_params.resolution']);
    let step = await checkStep(a, started.handle, c);
    for (let i = 0; i < 400 && step.kind === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 5));
      step = await checkStep(a, started.handle, c);
    }
    expect(step.kind === 'done' ? (step.result.warnings ?? []) : null).toEqual([]);
    // The worker's loop reports the start's warnings with the result.
    expect((await runAdapterCall(a, c, 10_000)).warnings?.map((w) => w.param)).toEqual(['video_params.resolution']);
  });

  it('cancels with DELETE /v1/tasks/{id}; the task then reads CANCELLED', async () => {
    const a = adapter();
    const c = call('runway.veo3', { prompt: 'p' });
    const { handle } = await a.start(c);
    await a.cancel(handle, c);
    expect(fake.upstream.callsTo('DELETE', /^\/v1\/tasks\//)).toHaveLength(1);
    expect(await a.status(handle, c)).toMatchObject({ state: 'failed', error: { isRetryable: false } });
  });

  it.each([
    ['SAFETY.INPUT.TEXT', 'content_policy', false],
    ['ASSET.INVALID', 'invalid_input', false],
    ['INTERNAL.BAD_OUTPUT', 'server', true],
  ])('a task failing with %s is %s', async (code, kind, retryable) => {
    fake.jobs.failNextJobs({ code, message: 'The task failed' });
    let caught: unknown = null;
    try {
      await runAdapterCall(adapter(), call('runway.gen4.5', { prompt: 'x' }), 10_000);
    } catch (e) {
      caught = e;
    }
    expect(isUpstreamError(caught)).toBe(true);
    expect((caught as UpstreamError).kind).toBe(kind);
    expect((caught as UpstreamError).isRetryable).toBe(retryable);
  });

  it('refuses Gen-4 Turbo without a first frame before calling Runway', async () => {
    await expect(adapter().start(call('runway.gen4-turbo', { prompt: 'p' }))).rejects.toMatchObject({ kind: 'invalid_input' });
    expect(fake.upstream.calls).toHaveLength(0);
  });

  it('is unavailable without RUNWAYML_API_SECRET, naming the setting', () => {
    expect(new RunwayAdapter().availability).toEqual({ available: false, reason: expect.stringContaining('RUNWAYML_API_SECRET'), settings: ['RUNWAYML_API_SECRET'] });
    expect(adapter().trustedOrigins).toEqual([fake.url]);
  });
});

describe('runway parameter mapping (table)', () => {
  it.each<[string, RunRequest, string, Record<string, unknown>, string[]]>([
    ['runway.gen4-turbo', { video_params: { image_urls: ['https://i.example/a.png'] } }, '/v1/image_to_video', { model: 'gen4_turbo', promptImage: 'https://i.example/a.png', ratio: '1280:720', duration: 5 }, []],
    ['runway.gen4-turbo', { prompt: 'p', video_params: { image_urls: ['https://i.example/a.png'], aspect_ratio: '21:9', duration: 10 } }, '/v1/image_to_video', { ratio: '1584:672', duration: 10, promptText: 'p' }, []],
    ['runway.gen4-turbo', { prompt: 'p', video_params: { image_urls: ['https://i.example/a.png'], aspect_ratio: '1:1' }, provider_params: { public_figure_threshold: 'low' } }, '/v1/image_to_video', { ratio: '960:960', contentModeration: { publicFigureThreshold: 'low' } }, []],
    ['runway.gen4.5', { prompt: 'p', video_params: { duration: 3 } }, '/v1/text_to_video', { model: 'gen4.5', ratio: '1280:720', duration: 3 }, []],
    ['runway.veo3', { prompt: 'p', video_params: { resolution: '1080p', aspect_ratio: '9:16' } }, '/v1/text_to_video', { model: 'veo3', ratio: '1080:1920', duration: 8 }, []],
    ['runway.veo3', { prompt: 'p', video_params: { resolution: '1080p', image_urls: ['https://i.example/b.png'] } }, '/v1/image_to_video', { ratio: '1280:720', promptImage: 'https://i.example/b.png' }, ['video_params.resolution']],
  ])('%s %j', (id, request, path, body, warned) => {
    const req = normalizeRunRequest(model(id), request);
    if (req.modality !== 'video') throw new Error('video');
    const r = runwayTaskRequest(entry(id), req);
    expect(r.path).toBe(path);
    expect(r.body).toMatchObject(body);
    expect(r.warnings.map((w) => w.param)).toEqual(warned);
  });

  it.each<[string, RunRequest]>([
    ['runway.gen4-turbo', { prompt: 'p', video_params: { resolution: '1080p' } }],
    ['runway.gen4.5', { prompt: 'p', video_params: { aspect_ratio: '1:1' } }],
    ['runway.veo3', { prompt: 'p', video_params: { duration: 5 } }],
    ['runway.veo3', { prompt: 'p', provider_params: { seed: 1 } }],
    ['runway.gen4.5', { prompt: 'p', video_params: { watermark: 'x' } }],
  ])('%s refuses %j before any hold', (id, request) => {
    expect(() => normalizeRunRequest(model(id), request)).toThrow();
  });
});

describe('runway prices through the PriceBook (markup x1.2): credits per second at $0.01 per credit', () => {
  const book = new PriceBook({ defaultBp: 12_000, providers: new Map(), models: new Map() });
  it.each<[string, RunRequest, number]>([
    // gen4_turbo 5 credits/s x 10 s = 50 credits = $0.50 = 50,000,000 micro-credits; x1.2
    ['runway.gen4-turbo', { video_params: { duration: 10, image_urls: ['https://i.example/a.png'] } }, 60_000_000],
    ['runway.gen4.5', { prompt: 'p', video_params: { duration: 2 } }, 28_800_000],
    ['runway.veo3', { prompt: 'p' }, 384_000_000],
  ])('%s %j holds %i micro-credits', (id, request, charge) => {
    const m = model(id);
    expect(book.quote(m, normalizeRunRequest(m, request)).chargeMicro).toBe(charge);
  });
});
