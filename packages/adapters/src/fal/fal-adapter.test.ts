import { checkStep, isUpstreamError, normalizeRunRequest, PriceBook, WebhookRejected, type JsonValue, type ModelDescriptor, type RunRequest, type UpstreamError } from '@gengate/core/adapter';
import { describeAdapterConformance, describeOneRequestPerAttempt, FakeFal, FakeUpstream, kitCall, runAdapterCall } from '@gengate/testing';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { FalAdapter } from './fal-adapter.js';
import { falVideoSubmission } from './fal-mapping.js';
import { FAL_MODELS } from './fal-models.js';

const KEY = 'fal-test-key-0123456789';
const fake = await FakeFal.start({ durationMs: 120 });
const receiver = await FakeUpstream.start([{ method: 'POST', path: '/hooks/fal', handler: () => ({ status: 200, body: { ok: true } }) }]);
afterAll(async () => {
  await fake.close();
  await receiver.close();
});

const adapter = (over: { now?: () => number } = {}) =>
  new FalAdapter({ apiKey: KEY, baseURL: fake.runUrl, queueURL: fake.queueUrl, jwksUrl: fake.jwksUrl, poll: { firstMs: 20, maxMs: 50 }, ...over });
const model = (id: string): ModelDescriptor => {
  const m = FAL_MODELS.find((x) => x.descriptor.id === id);
  if (!m) throw new Error(id);
  return m.descriptor;
};
const call = (id: string, request: RunRequest, webhookUrl: string | null = null) => kitCall(model(id), request, AbortSignal.timeout(10_000), webhookUrl);

describeAdapterConformance('fal', { adapter: () => adapter(), upstream: fake.upstream, cancelsSeen: () => fake.jobs.cancelRequests, credential: KEY, timeoutMs: 10_000 });
describeOneRequestPerAttempt('fal', { adapter: () => adapter(), upstream: fake.upstream });

describe('fal adapter against the fake fal', () => {
  beforeEach(() => {
    fake.upstream.reset();
    fake.jobs.reset();
  });

  it('submits to the queue, checks status with logs, fetches the result by app id, with the key only in Authorization', async () => {
    const c = call('fal.kling-v2.1-master', { prompt: 'a red fox', video_params: { duration: 10, aspect_ratio: '9:16' }, provider_params: { cfg_scale: 0.4 } }, `${receiver.url}/hooks/fal`);
    let handle: JsonValue = null;
    const result = await runAdapterCall(adapter(), c, 10_000);
    expect(result.files).toEqual([{ kind: 'url', url: expect.stringMatching(/\/files\/[0-9a-f-]+\.mp4$/), mediaType: 'video/mp4' }]);
    const [submit, ...rest] = fake.upstream.calls;
    expect(submit).toMatchObject({
      method: 'POST',
      path: '/queue/fal-ai/kling-video/v2.1/master/text-to-video',
      query: { fal_webhook: `${receiver.url}/hooks/fal` },
      headers: { authorization: '[credential]', 'content-type': 'application/json' },
      body: { prompt: 'a red fox', duration: '10', aspect_ratio: '9:16', cfg_scale: 0.4 },
    });
    handle = [...fake.jobs.jobs.keys()].at(-1) ?? null;
    expect(fake.upstream.calls.every((x) => x.credential === `Key ${KEY}`)).toBe(true);
    const statusCalls = rest.filter((x) => x.path.endsWith('/status'));
    expect(statusCalls.length).toBeGreaterThan(0);
    expect(statusCalls[0]).toMatchObject({ method: 'GET', path: `/queue/fal-ai/kling-video/requests/${String(handle)}/status`, query: { logs: '1' }, body: null });
    expect(rest.at(-1)).toMatchObject({ method: 'GET', path: `/queue/fal-ai/kling-video/requests/${String(handle)}` });
    expect(fake.jobs.submissions).toBe(1);
  });

  it('reports progress from the runner logs while in progress', async () => {
    const a = adapter();
    const c = call('fal.veo3-fast', { prompt: 'waves', video_params: { duration: 4 } });
    const { handle } = await a.start(c);
    let progress: number | null = null;
    for (let i = 0; i < 200 && progress === null; i++) {
      const step = await checkStep(a, handle, c);
      if (step.kind === 'running' && step.progress !== null && step.progress > 0) progress = step.progress;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(progress).toBeGreaterThan(0);
    expect(progress).toBeLessThanOrEqual(1);
  });

  it('restarts between submit and completion without submitting again', async () => {
    const c = call('fal.hailuo-02-standard', { prompt: 'city at night', video_params: { duration: 6 } });
    const handle = JSON.parse(JSON.stringify((await adapter().start(c)).handle)) as JsonValue;
    const second = adapter();
    let done = false;
    for (let i = 0; i < 400 && !done; i++) {
      const step = await checkStep(second, handle, c);
      done = step.kind === 'done';
      if (!done) await new Promise((r) => setTimeout(r, 5));
    }
    expect(done).toBe(true);
    expect(fake.jobs.submissions).toBe(1);
    expect(fake.upstream.callsTo('POST', /^\/queue\//)).toHaveLength(1);
  });

  it('cancels with PUT .../requests/{id}/cancel and the job ends cancelled', async () => {
    const a = adapter();
    const c = call('fal.kling-v2.1-master', { prompt: 'slow', video_params: { duration: 5 } });
    const { handle } = await a.start(c);
    await a.cancel(handle, c);
    const id = a.jobIdOf(handle);
    expect(fake.upstream.callsTo('PUT', `/queue/fal-ai/kling-video/requests/${id}/cancel`)).toHaveLength(1);
    expect(fake.jobs.phase(fake.jobs.jobs.get(id)!)).toBe('cancelled');
    // cancelling an ended job is not an error
    await expect(a.cancel(handle, c)).resolves.toBeUndefined();
  });

  it.each([
    ['content_policy_violation', 'The content could not be processed because it contained material flagged by a content checker.', 'content_policy'],
    ['value_error', 'Prompt is too long', 'invalid_input'],
  ])('a job that ends in fal error %s fails the task as %s (not retried)', async (code, message, kind) => {
    fake.jobs.failNextJobs({ code, message, status: 422 });
    let caught: unknown = null;
    try {
      await runAdapterCall(adapter(), call('fal.veo3-fast', { prompt: 'x', video_params: { duration: 4 } }), 10_000);
    } catch (e) {
      caught = e;
    }
    expect(isUpstreamError(caught)).toBe(true);
    expect((caught as UpstreamError).kind).toBe(kind);
    expect((caught as UpstreamError).isRetryable).toBe(false);
  });

  it('classifies a rate-limited status check as retryable with Retry-After, and the job is still followed afterwards', async () => {
    const a = adapter();
    const c = call('fal.veo3-fast', { prompt: 'x', video_params: { duration: 4 } });
    // Held, the job is still running at the second check however slow the machine (its 120 ms could pass).
    fake.jobs.hold();
    try {
      const { handle } = await a.start(c);
      fake.upstream.failNext({ kind: 'status', status: 429, headers: { 'retry-after': '3' }, body: { detail: 'Too many requests' } });
      const e = await a.status(handle, c).catch((x: unknown) => x);
      expect(e).toMatchObject({ kind: 'rate_limited', isRetryable: true, retryAfterMs: 3_000 });
      expect((await a.status(handle, c)).state).toBe('running');
    } finally {
      fake.jobs.release();
    }
  });

  it('generates FLUX images through @ai-sdk/fal on fal.run: image_size, seed, num_images per call, provider parameters in fal names', async () => {
    const c = call('fal.flux-dev', { prompt: 'a lighthouse', image_params: { aspect_ratio: '16:9', seed: 7, n: 2 }, provider_params: { guidance_scale: 4.5, output_format: 'png' } });
    const result = await runAdapterCall(adapter(), c, 10_000);
    expect(result.files).toHaveLength(2);
    expect(result.files[0]).toMatchObject({ kind: 'bytes', mediaType: 'image/png' });
    const runs = fake.upstream.callsTo('POST', '/run/fal-ai/flux/dev');
    expect(runs).toHaveLength(2);
    expect(runs[0]?.credential).toBe(`Key ${KEY}`);
    expect(runs[0]?.body).toMatchObject({ prompt: 'a lighthouse', seed: 7, num_images: 1, image_size: { width: 1024, height: 576 }, guidance_scale: 4.5, output_format: 'png' });
  });

  it('is unavailable without FAL_KEY, naming the setting', () => {
    const a = new FalAdapter({});
    expect(a.availability).toEqual({ available: false, reason: expect.stringContaining('FAL_KEY'), settings: ['FAL_KEY'] });
    expect(adapter().availability).toEqual({ available: true, settings: ['FAL_KEY'] });
    expect(adapter().trustedOrigins).toEqual([fake.url]);
  });
});

describe('fal parameter mapping (table)', () => {
  const video = (id: string) => {
    const m = FAL_MODELS.find((x) => x.descriptor.id === id);
    if (!m || m.endpoint.kind !== 'video') throw new Error(id);
    return { descriptor: m.descriptor, endpoint: m.endpoint };
  };
  it.each<[string, RunRequest, string, Record<string, unknown>, string[]]>([
    ['fal.kling-v2.1-master', { prompt: 'p', video_params: { duration: 5 } }, 'fal-ai/kling-video/v2.1/master/text-to-video', { prompt: 'p', duration: '5', aspect_ratio: '16:9' }, []],
    ['fal.kling-v2.1-master', { prompt: 'p', video_params: { duration: 10, aspect_ratio: '1:1' }, provider_params: { negative_prompt: 'blur' } }, 'fal-ai/kling-video/v2.1/master/text-to-video', { duration: '10', aspect_ratio: '1:1', negative_prompt: 'blur' }, []],
    ['fal.kling-v2.1-master', { prompt: 'p', video_params: { image_urls: ['https://img.example/a.png'], aspect_ratio: '9:16' } }, 'fal-ai/kling-video/v2.1/master/image-to-video', { image_url: 'https://img.example/a.png' }, ['video_params.aspect_ratio']],
    ['fal.veo3-fast', { prompt: 'p', video_params: { duration: 6, resolution: '1080p', aspect_ratio: '9:16' } }, 'fal-ai/veo3/fast', { duration: '6s', resolution: '1080p', aspect_ratio: '9:16', generate_audio: true }, []],
    ['fal.veo3-fast', { prompt: 'p', provider_params: { generate_audio: false, seed: 3 } }, 'fal-ai/veo3/fast', { duration: '8s', resolution: '720p', generate_audio: false, seed: 3 }, []],
    ['fal.veo3-fast', { prompt: 'p', video_params: { image_urls: ['https://img.example/b.png'] } }, 'fal-ai/veo3/fast/image-to-video', { image_url: 'https://img.example/b.png', aspect_ratio: '16:9' }, []],
    ['fal.hailuo-02-standard', { prompt: 'p', video_params: { duration: 10 }, provider_params: { prompt_optimizer: false } }, 'fal-ai/minimax/hailuo-02/standard/text-to-video', { duration: '10', prompt_optimizer: false }, []],
  ])('%s %j -> %s', (id, request, path, body, warned) => {
    const { descriptor, endpoint } = video(id);
    const req = normalizeRunRequest(descriptor, request);
    if (req.modality !== 'video') throw new Error('video');
    const s = falVideoSubmission(endpoint, req);
    expect(s.modelPath).toBe(path);
    expect(s.body).toMatchObject(body);
    expect(s.warnings.map((w) => w.param)).toEqual(warned);
  });

  it.each<[string, RunRequest]>([
    ['fal.kling-v2.1-master', { prompt: 'p', video_params: { duration: 8 } }],
    ['fal.kling-v2.1-master', { prompt: 'p', video_params: { resolution: '720p' } }],
    ['fal.veo3-fast', { prompt: 'p', video_params: { aspect_ratio: '1:1' } }],
    ['fal.hailuo-02-standard', { prompt: 'p', video_params: { video_urls: ['https://v.example/a.mp4'] } }],
    ['fal.veo3-fast', { prompt: 'p', video_params: { multi_shots: true } }],
    ['fal.flux-dev', { prompt: 'p', image_params: { negative_prompt: 'x' } }],
    ['fal.flux-schnell', { prompt: 'p', provider_params: { guidance_scale: 3 } }],
  ])('%s refuses %j before any hold', (id, request) => {
    expect(() => normalizeRunRequest(model(id), request)).toThrow();
  });
});

describe('fal prices through the PriceBook (markup x1.25)', () => {
  const book = new PriceBook({ defaultBp: 12_500, providers: new Map(), models: new Map() });
  it.each<[string, RunRequest, number]>([
    // $0.28/s x 5 s = $1.40 = 140,000,000 micro-credits; x1.25
    ['fal.kling-v2.1-master', { prompt: 'p', video_params: { duration: 5 } }, 175_000_000],
    ['fal.kling-v2.1-master', { prompt: 'p', video_params: { duration: 10 } }, 350_000_000],
    // Veo 3 Fast: $0.15/s with audio, $0.10/s without
    ['fal.veo3-fast', { prompt: 'p', video_params: { duration: 8 } }, 150_000_000],
    ['fal.veo3-fast', { prompt: 'p', video_params: { duration: 8 }, provider_params: { generate_audio: false } }, 100_000_000],
    ['fal.hailuo-02-standard', { prompt: 'p', video_params: { duration: 6 } }, 33_750_000],
    // FLUX dev: $0.025 per started megapixel; 1024x1024 is 1 MP, 2048x1152 is 3 MP
    ['fal.flux-dev', { prompt: 'p' }, 3_125_000],
    ['fal.flux-dev', { prompt: 'p', image_params: { width: 2048, height: 1152 } }, 9_375_000],
    ['fal.flux-schnell', { prompt: 'p', image_params: { n: 4 } }, 1_500_000],
  ])('%s %j holds %i micro-credits', (id, request, charge) => {
    const m = model(id);
    expect(book.quote(m, normalizeRunRequest(m, request)).chargeMicro).toBe(charge);
  });
});

describe('fal completion webhooks', () => {
  beforeEach(() => {
    fake.upstream.reset();
    fake.jobs.reset();
  });

  async function deliveredWebhook() {
    const a = adapter();
    const c = call('fal.veo3-fast', { prompt: 'p', video_params: { duration: 4 } }, `${receiver.url}/hooks/fal`);
    const { handle } = await a.start(c);
    await fake.jobs.waitForDeliveries(1);
    const d = fake.jobs.deliveries[0]!;
    expect(d.status).toBe(200);
    return { a, c, handle, d };
  }

  it('verifies a delivered webhook (ED25519, keys from the JWKS) and reads the finished job from it', async () => {
    const { a, c, handle, d } = await deliveredWebhook();
    await expect(a.verifyWebhook({ headers: d.headers, rawBody: Buffer.from(d.body), url: d.url })).resolves.toBeUndefined();
    expect(fake.upstream.callsTo('GET', '/.well-known/jwks.json')).toHaveLength(1);
    const event = a.readWebhook(JSON.parse(d.body) as JsonValue);
    expect(event?.jobId).toBe(a.jobIdOf(handle));
    expect(event?.status).toMatchObject({ state: 'succeeded', result: { files: [{ kind: 'url', mediaType: 'video/mp4' }] } });
  });

  it('refuses a tampered body, a forged signature, missing headers and a stale (replayed) delivery', async () => {
    const { d } = await deliveredWebhook();
    const a = adapter();
    const tampered = d.body.replace('"OK"', '"ERROR"');
    await expect(a.verifyWebhook({ headers: d.headers, rawBody: Buffer.from(tampered), url: d.url })).rejects.toBeInstanceOf(WebhookRejected);
    const forged = { ...d.headers, 'x-fal-webhook-signature': 'ab'.repeat(64) };
    await expect(a.verifyWebhook({ headers: forged, rawBody: Buffer.from(d.body), url: d.url })).rejects.toBeInstanceOf(WebhookRejected);
    const { 'x-fal-webhook-signature': _omit, ...unsigned } = d.headers;
    await expect(a.verifyWebhook({ headers: unsigned, rawBody: Buffer.from(d.body), url: d.url })).rejects.toBeInstanceOf(WebhookRejected);
    const stale = fake.signWebhook('00000000-0000-4000-8000-000000000000', d.body, Math.floor(Date.now() / 1000) - 600);
    await expect(a.verifyWebhook({ headers: stale, rawBody: Buffer.from(d.body), url: d.url })).rejects.toBeInstanceOf(WebhookRejected);
    const later = adapter({ now: () => Date.now() + 6 * 60_000 });
    await expect(later.verifyWebhook({ headers: d.headers, rawBody: Buffer.from(d.body), url: d.url })).rejects.toThrow(/tolerance/);
  });

  it('reads an ERROR webhook as a failed job with its class', () => {
    const event = adapter().readWebhook(
      { request_id: 'r1', gateway_request_id: 'r1', status: 'ERROR', error: 'Invalid status code: 422', payload: { detail: [{ loc: ['body', 'prompt'], msg: 'flagged by a content checker', type: 'content_policy_violation' }] } },
    );
    expect(event?.jobId).toBe('r1');
    expect(event?.status).toMatchObject({ state: 'failed', error: { kind: 'content_policy', statusCode: 422 } });
  });
});
