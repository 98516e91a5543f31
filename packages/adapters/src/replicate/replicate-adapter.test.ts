import { checkStep, isUpstreamError, normalizeRunRequest, PriceBook, WebhookRejected, type JsonValue, type ModelDescriptor, type RunRequest, type UpstreamError } from '@gengate/core/adapter';
import { describeAdapterConformance, describeOneRequestPerAttempt, FakeReplicate, FakeUpstream, kitCall, minimalRequest, runAdapterCall } from '@gengate/testing';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ReplicateAdapter } from './replicate-adapter.js';
import { replicateVideoInput } from './replicate-mapping.js';
import { REPLICATE_MODELS } from './replicate-models.js';

const TOKEN = 'r8_testtoken0123456789abcdef';
const fake = await FakeReplicate.start({ durationMs: 120 });
const receiver = await FakeUpstream.start([{ method: 'POST', path: '/hooks/replicate', handler: () => ({ status: 200, body: {} }) }]);
afterAll(async () => {
  await fake.close();
  await receiver.close();
});

const adapter = (over: { webhookSecret?: string } = {}) => new ReplicateAdapter({ apiKey: TOKEN, baseURL: fake.baseUrl, poll: { firstMs: 20, maxMs: 50 }, ...over });
const model = (id: string): ModelDescriptor => {
  const m = REPLICATE_MODELS.find((x) => x.descriptor.id === id);
  if (!m) throw new Error(id);
  return m.descriptor;
};
const call = (id: string, request: RunRequest, webhookUrl: string | null = null) => kitCall(model(id), request, AbortSignal.timeout(10_000), webhookUrl);
/** Kling 2.1 on Replicate needs a first frame. */
const requestFor = (m: ModelDescriptor): RunRequest =>
  m.id === 'replicate.kling-v2.1' ? { ...minimalRequest(m), video_params: { duration: 5, image_urls: ['https://img.example/start.png'] } } : minimalRequest(m);

describeAdapterConformance('replicate', { adapter: () => adapter(), upstream: fake.upstream, cancelsSeen: () => fake.jobs.cancelRequests, credential: TOKEN, requestFor, timeoutMs: 10_000 });
describeOneRequestPerAttempt('replicate', { adapter: () => adapter(), upstream: fake.upstream, requestFor });

describe('replicate adapter against the fake Replicate', () => {
  beforeEach(() => {
    fake.upstream.reset();
    fake.jobs.reset();
  });

  it('creates a prediction with a completed-only webhook, gets it until it ends, with the token only in Authorization', async () => {
    const c = call('replicate.hailuo-02', { prompt: 'a waterfall', video_params: { duration: 10 }, provider_params: { prompt_optimizer: false } }, `${receiver.url}/hooks/replicate`);
    const result = await runAdapterCall(adapter(), c, 10_000);
    expect(result.files).toEqual([{ kind: 'url', url: expect.stringMatching(/\/files\/[0-9a-z]+\.mp4$/), mediaType: 'video/mp4' }]);
    const [create, ...gets] = fake.upstream.calls;
    expect(create).toMatchObject({
      method: 'POST',
      path: '/v1/models/minimax/hailuo-02/predictions',
      headers: { authorization: '[credential]' },
      body: { input: { prompt: 'a waterfall', duration: 10, resolution: '768p', prompt_optimizer: false }, webhook: `${receiver.url}/hooks/replicate`, webhook_events_filter: ['completed'] },
    });
    expect(create?.headers['prefer']).toBeUndefined();
    const id = [...fake.jobs.jobs.keys()].at(-1);
    expect(gets.length).toBeGreaterThan(0);
    for (const g of gets) expect(g).toMatchObject({ method: 'GET', path: `/v1/predictions/${id}`, body: null });
    expect(fake.upstream.calls.every((x) => x.credential === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('reports progress from the tqdm lines in the logs', async () => {
    const a = adapter();
    const c = call('replicate.hailuo-02', { prompt: 'p', video_params: { duration: 6 } });
    const { handle } = await a.start(c);
    let progress: number | null = null;
    for (let i = 0; i < 200 && progress === null; i++) {
      const step = await checkStep(a, handle, c);
      if (step.kind === 'running' && step.progress !== null && step.progress > 0) progress = step.progress;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(progress).toBeGreaterThan(0);
  });

  it('restarts between submit and completion without creating a second prediction', async () => {
    const c = call('replicate.kling-v2.1', { prompt: 'p', video_params: { duration: 5, image_urls: ['https://img.example/a.png'] } });
    const handle = JSON.parse(JSON.stringify((await adapter().start(c)).handle)) as JsonValue;
    const second = adapter();
    let done = false;
    for (let i = 0; i < 400 && !done; i++) {
      done = (await checkStep(second, handle, c)).kind === 'done';
      if (!done) await new Promise((r) => setTimeout(r, 5));
    }
    expect(done).toBe(true);
    expect(fake.jobs.submissions).toBe(1);
    expect(fake.upstream.callsTo('POST', /\/predictions$/)).toHaveLength(1);
  });

  it('cancels with POST /v1/predictions/{id}/cancel and the prediction ends canceled', async () => {
    const a = adapter();
    const c = call('replicate.hailuo-02', { prompt: 'p' });
    // Held, the prediction is still running when the cancel arrives however slow the machine (its 120 ms could pass).
    fake.jobs.hold();
    try {
      const { handle } = await a.start(c);
      await a.cancel(handle, c);
      const id = a.jobIdOf(handle);
      expect(fake.upstream.callsTo('POST', `/v1/predictions/${id}/cancel`)).toHaveLength(1);
      expect(await a.status(handle, c)).toMatchObject({ state: 'failed', error: { isRetryable: false } });
    } finally {
      fake.jobs.release();
    }
  });

  it.each([
    ['NSFW content detected. Try running it again, or try a different prompt.', 'content_policy', false],
    ['Prediction failed: CUDA out of memory', 'server', true],
  ])('a prediction failing with "%s" is %s', async (message, kind, retryable) => {
    fake.jobs.failNextJobs({ message });
    let caught: unknown = null;
    try {
      await runAdapterCall(adapter(), call('replicate.hailuo-02', { prompt: 'x' }), 10_000);
    } catch (e) {
      caught = e;
    }
    expect(isUpstreamError(caught)).toBe(true);
    expect((caught as UpstreamError).kind).toBe(kind);
    expect((caught as UpstreamError).isRetryable).toBe(retryable);
  });

  it('refuses a Kling 2.1 request without a first frame, and Hailuo 1080p beyond 6 s, before submitting anything', async () => {
    await expect(adapter().start(call('replicate.kling-v2.1', { prompt: 'p' }))).rejects.toMatchObject({ kind: 'invalid_input' });
    await expect(adapter().start(call('replicate.hailuo-02', { prompt: 'p', video_params: { resolution: '1080p', duration: 10 } }))).rejects.toMatchObject({ kind: 'invalid_input' });
    expect(fake.upstream.calls).toHaveLength(0);
  });

  it('generates FLUX images through @ai-sdk/replicate: aspect_ratio, seed, num_outputs, provider parameters', async () => {
    const result = await runAdapterCall(adapter(), call('replicate.flux-schnell', { prompt: 'a cat', image_params: { aspect_ratio: '16:9', seed: 9 }, provider_params: { output_format: 'png' } }), 10_000);
    expect(result.files).toEqual([{ kind: 'bytes', data: expect.any(Uint8Array), mediaType: 'image/png' }]);
    const [create] = fake.upstream.callsTo('POST', '/v1/models/black-forest-labs/flux-schnell/predictions');
    expect(create?.body).toMatchObject({ input: { prompt: 'a cat', aspect_ratio: '16:9', seed: 9, num_outputs: 1, output_format: 'png' } });
    expect(create?.credential).toBe(`Bearer ${TOKEN}`);
  });

  it('is unavailable without REPLICATE_API_TOKEN, naming the setting', () => {
    expect(new ReplicateAdapter({}).availability).toEqual({ available: false, reason: expect.stringContaining('REPLICATE_API_TOKEN'), settings: ['REPLICATE_API_TOKEN'] });
    expect(adapter().trustedOrigins).toEqual([fake.url]);
  });
});

describe('replicate parameter mapping (table)', () => {
  it.each<[string, string, RunRequest, Record<string, unknown>]>([
    ['replicate.kling-v2.1', 'kwaivgi/kling-v2.1', { prompt: 'p', video_params: { image_urls: ['https://i.example/a.png'] } }, { start_image: 'https://i.example/a.png', mode: 'standard', duration: 5 }],
    ['replicate.kling-v2.1', 'kwaivgi/kling-v2.1', { prompt: 'p', video_params: { image_urls: ['https://i.example/a.png'], resolution: '1080p', duration: 10 }, provider_params: { negative_prompt: 'blur' } }, { mode: 'pro', duration: 10, negative_prompt: 'blur' }],
    ['replicate.kling-v2.1-master', 'kwaivgi/kling-v2.1-master', { prompt: 'p', video_params: { aspect_ratio: '9:16' } }, { aspect_ratio: '9:16', duration: 5 }],
    ['replicate.kling-v2.1-master', 'kwaivgi/kling-v2.1-master', { prompt: 'p', video_params: { duration: 10, image_urls: ['https://i.example/a.png'] }, provider_params: { negative_prompt: 'blur' } }, { start_image: 'https://i.example/a.png', duration: 10, negative_prompt: 'blur' }],
    ['replicate.hailuo-02', 'minimax/hailuo-02', { prompt: 'p' }, { duration: 6, resolution: '768p', prompt_optimizer: true }],
    ['replicate.hailuo-02', 'minimax/hailuo-02', { prompt: 'p', video_params: { resolution: '1080p', image_urls: ['https://i.example/b.png'] } }, { resolution: '1080p', first_frame_image: 'https://i.example/b.png' }],
  ])('%s %j', (id, upstreamModel, request, input) => {
    const req = normalizeRunRequest(model(id), request);
    if (req.modality !== 'video') throw new Error('video');
    expect(replicateVideoInput(upstreamModel, req).input).toMatchObject({ prompt: 'p', ...input });
  });

  it.each<[string, RunRequest]>([
    ['replicate.kling-v2.1', { prompt: 'p', video_params: { aspect_ratio: '9:16' } }],
    ['replicate.hailuo-02', { prompt: 'p', video_params: { duration: 5 } }],
    ['replicate.flux-dev', { prompt: 'p', image_params: { width: 1000, height: 1000 } }],
    ['replicate.flux-schnell', { prompt: 'p', image_params: { negative_prompt: 'x' } }],
  ])('%s refuses %j before any hold', (id, request) => {
    expect(() => normalizeRunRequest(model(id), request)).toThrow();
  });
});

describe('replicate prices through the PriceBook (markup x1.5)', () => {
  const book = new PriceBook({ defaultBp: 15_000, providers: new Map(), models: new Map() });
  it.each<[string, RunRequest, number]>([
    ['replicate.kling-v2.1', { prompt: 'p', video_params: { duration: 5, image_urls: ['https://i.example/a.png'] } }, 37_500_000],
    ['replicate.kling-v2.1', { prompt: 'p', video_params: { duration: 10, resolution: '1080p', image_urls: ['https://i.example/a.png'] } }, 135_000_000],
    ['replicate.kling-v2.1-master', { prompt: 'p', video_params: { duration: 10 } }, 420_000_000],
    ['replicate.hailuo-02', { prompt: 'p', video_params: { duration: 10 } }, 67_500_000],
    ['replicate.flux-schnell', { prompt: 'p', image_params: { n: 4 } }, 1_800_000],
    ['replicate.flux-dev', { prompt: 'p' }, 3_750_000],
  ])('%s %j holds %i micro-credits', (id, request, charge) => {
    const m = model(id);
    expect(book.quote(m, normalizeRunRequest(m, request)).chargeMicro).toBe(charge);
  });
});

describe('replicate completion webhooks', () => {
  beforeEach(() => {
    fake.upstream.reset();
    fake.jobs.reset();
  });

  async function delivered(a: ReplicateAdapter) {
    const c = call('replicate.hailuo-02', { prompt: 'p' }, `${receiver.url}/hooks/replicate`);
    const { handle } = await a.start(c);
    await fake.jobs.waitForDeliveries(1);
    return { c, handle, d: fake.jobs.deliveries[0]! };
  }

  it('verifies a delivered webhook with the configured whsec_ secret and reads the finished prediction', async () => {
    const a = adapter({ webhookSecret: fake.webhookSecret });
    const { c, handle, d } = await delivered(a);
    await expect(a.verifyWebhook({ headers: d.headers, rawBody: Buffer.from(d.body), url: d.url })).resolves.toBeUndefined();
    expect(a.readWebhook(JSON.parse(d.body) as JsonValue)).toMatchObject({ jobId: a.jobIdOf(handle), status: { state: 'succeeded' } });
    expect(fake.upstream.callsTo('GET', '/v1/webhooks/default/secret')).toHaveLength(0);
  });

  it('without a configured secret, fetches the default one once from GET /v1/webhooks/default/secret', async () => {
    const a = adapter();
    const { d } = await delivered(a);
    const req = { headers: d.headers, rawBody: Buffer.from(d.body), url: d.url };
    await a.verifyWebhook(req);
    await a.verifyWebhook(req);
    const fetched = fake.upstream.callsTo('GET', '/v1/webhooks/default/secret');
    expect(fetched).toHaveLength(1);
    expect(fetched[0]?.credential).toBe(`Bearer ${TOKEN}`);
  });

  it('refuses a tampered body, a wrong secret, missing headers and a stale timestamp', async () => {
    const a = adapter({ webhookSecret: fake.webhookSecret });
    const { d } = await delivered(a);
    await expect(a.verifyWebhook({ headers: d.headers, rawBody: Buffer.from(d.body.replace('succeeded', 'failed')), url: d.url })).rejects.toBeInstanceOf(WebhookRejected);
    const other = adapter({ webhookSecret: `whsec_${Buffer.from('another secret of 32 bytes......').toString('base64')}` });
    await expect(other.verifyWebhook({ headers: d.headers, rawBody: Buffer.from(d.body), url: d.url })).rejects.toBeInstanceOf(WebhookRejected);
    const { 'webhook-signature': _s, ...unsigned } = d.headers;
    await expect(a.verifyWebhook({ headers: unsigned, rawBody: Buffer.from(d.body), url: d.url })).rejects.toBeInstanceOf(WebhookRejected);
    const stale = fake.signWebhook('msg_replayed', d.body, new Date(Date.now() - 10 * 60_000));
    await expect(a.verifyWebhook({ headers: stale, rawBody: Buffer.from(d.body), url: d.url })).rejects.toBeInstanceOf(WebhookRejected);
  });

  it('reads a failed prediction webhook as a classified failure and ignores non-terminal events', () => {
    const a = adapter({ webhookSecret: fake.webhookSecret });
    const c = call('replicate.hailuo-02', { prompt: 'p' });
    expect(a.readWebhook({ id: 'p1', status: 'failed', error: 'NSFW content detected.', urls: {} })).toMatchObject({ jobId: 'p1', status: { state: 'failed', error: { kind: 'content_policy' } } });
    expect(a.readWebhook({ id: 'p1', status: 'processing', logs: '' })).toBeNull();
  });
});
