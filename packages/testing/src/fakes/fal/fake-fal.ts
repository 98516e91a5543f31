/*
 * A fake fal.ai, following its documented queue and webhook APIs:
 * - queue: https://docs.fal.ai/model-endpoints/queue (POST https://queue.fal.run/{model_id}[/{subpath}],
 *   GET .../{app}/requests/{request_id}/status[?logs=1], GET .../requests/{request_id}, PUT .../requests/{request_id}/cancel;
 *   status and result are addressed WITHOUT the model's subpath, e.g. fal-ai/kling-video/requests/{id});
 * - webhooks: https://docs.fal.ai/model-endpoints/webhooks (`fal_webhook` query parameter; POST of
 *   {request_id, gateway_request_id, status: "OK"|"ERROR", payload, error}; ED25519 signature over
 *   "{request_id}\n{user_id}\n{timestamp}\n{sha256 hex of the body}" in X-Fal-Webhook-* headers, public keys as
 *   a JWKS at /.well-known/jwks.json);
 * - synchronous runs (what @ai-sdk/fal's image model calls): POST https://fal.run/{model_id} answering the model's output.
 * The fake serves the queue under /queue, synchronous runs under /run, files under /files and its JWKS at the root.
 */
import { createHash, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { FakeUpstream, type FakeReply, type RecordedCall } from '../fake-upstream.js';
import { FAKE_FILE_PATH, FakeJobBook, type FakeJob, type FakeJobBookOptions } from '../video/fake-jobs.js';
import { FAKE_PNG, fakeMp4 } from '../video/fake-media.js';

export interface FakeFalOptions extends FakeJobBookOptions {
  /** The user id fal puts in X-Fal-Webhook-User-Id. */
  readonly userId?: string;
}

const QUEUE_REQUEST = /^\/queue\/([^/]+\/[^/]+)\/requests\/([0-9a-f-]{36})(\/status|\/cancel)?$/;

/** The app id of a model path: its first two segments (`fal-ai/kling-video/v2.1/master/text-to-video` -> `fal-ai/kling-video`). */
export function falAppId(modelPath: string): string {
  return modelPath.split('/').slice(0, 2).join('/');
}

function isVideoModel(model: string): boolean {
  return /video|veo|hailuo|wan|kling|minimax/.test(model);
}

export class FakeFal {
  readonly jobs: FakeJobBook;
  readonly userId: string;
  private readonly privateKey: KeyObject;
  /** The public key as a JWK (what fal's JWKS lists). */
  readonly publicJwk: JsonWebKey & { kid: string };

  private constructor(
    readonly upstream: FakeUpstream,
    keys: { privateKey: KeyObject; publicKey: KeyObject },
    options: FakeFalOptions,
  ) {
    this.userId = options.userId ?? 'fake-fal-user';
    this.privateKey = keys.privateKey;
    this.publicJwk = { ...(keys.publicKey.export({ format: 'jwk' }) as JsonWebKey), kid: 'fake-fal-key-1' };
    this.jobs = new FakeJobBook((job) => this.webhookFor(job), options);
  }

  static async start(options: FakeFalOptions = {}): Promise<FakeFal> {
    const keys = generateKeyPairSync('ed25519');
    let self: FakeFal | null = null;
    const upstream = await FakeUpstream.start([
      { method: 'GET', path: '/.well-known/jwks.json', handler: () => ({ body: { keys: [self?.publicJwk] } }) },
      { method: 'GET', path: FAKE_FILE_PATH, handler: (c) => self!.file(c) },
      { method: 'GET', path: QUEUE_REQUEST, handler: (c) => self!.queueGet(c) },
      { method: 'PUT', path: QUEUE_REQUEST, handler: (c) => self!.queueCancel(c) },
      { method: 'POST', path: /^\/queue\/.+/, handler: (c) => self!.submit(c) },
      { method: 'POST', path: /^\/run\/.+/, handler: (c) => self!.run(c) },
    ]);
    self = new FakeFal(upstream, keys, options);
    return self;
  }

  get url(): string {
    return this.upstream.url;
  }
  /** What to configure as FAL_QUEUE_URL. */
  get queueUrl(): string {
    return `${this.upstream.url}/queue`;
  }
  /** What to configure as FAL_BASE_URL (synchronous runs). */
  get runUrl(): string {
    return `${this.upstream.url}/run`;
  }
  get jwksUrl(): string {
    return `${this.upstream.url}/.well-known/jwks.json`;
  }

  async close(): Promise<void> {
    this.jobs.close();
    await this.upstream.close();
  }

  /** Signs a webhook body exactly as fal does (for tests that forge or replay one). */
  signWebhook(requestId: string, body: string, timestampSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
    const digest = createHash('sha256').update(body).digest('hex');
    const message = Buffer.from([requestId, this.userId, String(timestampSeconds), digest].join('\n'));
    return {
      'content-type': 'application/json',
      'x-fal-webhook-request-id': requestId,
      'x-fal-webhook-user-id': this.userId,
      'x-fal-webhook-timestamp': String(timestampSeconds),
      'x-fal-webhook-signature': sign(null, message, this.privateKey).toString('hex'),
    };
  }

  private requestUrls(app: string, id: string): Record<string, string> {
    const base = `${this.queueUrl}/${app}/requests/${id}`;
    return { response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel` };
  }

  private submit(call: RecordedCall): FakeReply {
    const model = call.path.slice('/queue/'.length);
    if (typeof call.body !== 'object' || call.body === null || typeof (call.body as { prompt?: unknown }).prompt !== 'string') {
      return { status: 422, body: { detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' }] } };
    }
    const job = this.jobs.submit({ model, input: call.body, webhookUrl: call.query['fal_webhook'] ?? null, meta: { app: falAppId(model) } });
    return { body: { request_id: job.id, gateway_request_id: job.id, ...this.requestUrls(falAppId(model), job.id), queue_position: 0 } };
  }

  private queueGet(call: RecordedCall): FakeReply {
    const [, app, id, suffix] = QUEUE_REQUEST.exec(call.path) ?? [];
    const job = id ? this.jobs.jobs.get(id) : undefined;
    if (!job || job.meta['app'] !== app) return { status: 404, body: { detail: 'Request not found' } };
    const phase = this.jobs.phase(job);
    if (suffix === '/status') {
      const urls = this.requestUrls(app!, job.id);
      if (phase === 'queued') return { status: 202, body: { status: 'IN_QUEUE', queue_position: 0, ...urls } };
      const logs = call.query['logs'] === '1' ? [{ message: `progress: ${Math.round(this.jobs.progress(job) * 100)}%`, level: 'INFO', source: 'user', timestamp: new Date().toISOString() }] : null;
      if (phase === 'running') return { status: 202, body: { status: 'IN_PROGRESS', logs, ...urls } };
      return { body: { status: 'COMPLETED', logs, metrics: { inference_time: job.durationMs / 1000 }, ...urls } };
    }
    if (phase === 'queued' || phase === 'running') return { status: 400, body: { detail: 'Request is still in progress' } };
    if (phase === 'cancelled') return { status: 400, body: { detail: 'Request was cancelled' } };
    if (phase === 'failed') return this.failureReply(job);
    return { body: this.output(job) };
  }

  private queueCancel(call: RecordedCall): FakeReply {
    const [, app, id, suffix] = QUEUE_REQUEST.exec(call.path) ?? [];
    const job = id ? this.jobs.jobs.get(id) : undefined;
    if (suffix !== '/cancel' || !job || job.meta['app'] !== app) return { status: 404, body: { detail: 'Request not found' } };
    return this.jobs.cancel(job) ? { status: 202, body: { status: 'CANCELLATION_REQUESTED' } } : { status: 400, body: { status: 'ALREADY_COMPLETED' } };
  }

  /** A synchronous run (fal.run): answers the model's output at once. */
  private run(call: RecordedCall): FakeReply {
    const model = call.path.slice('/run/'.length);
    if (typeof call.body !== 'object' || call.body === null || typeof (call.body as { prompt?: unknown }).prompt !== 'string') {
      return { status: 422, body: { detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' }] } };
    }
    const job = this.jobs.submit({ model, input: call.body, webhookUrl: null, durationMs: 0, meta: { app: falAppId(model) } });
    if (job.failure) return this.failureReply(job);
    return { body: this.output(job) };
  }

  private failureReply(job: FakeJob): FakeReply {
    const f = job.failure!;
    return { status: f.status ?? 422, body: { detail: [{ loc: ['body', 'prompt'], msg: f.message, type: f.code ?? 'value_error' }] } };
  }

  private output(job: FakeJob): Record<string, unknown> {
    const input = job.input as { seed?: number; num_images?: number; image_size?: { width: number; height: number } };
    if (isVideoModel(job.model)) {
      return { video: { url: `${this.url}/files/${job.id}.mp4`, content_type: 'video/mp4', file_name: 'output.mp4', file_size: fakeMp4().byteLength } };
    }
    const n = input.num_images ?? 1;
    const size = typeof input.image_size === 'object' ? input.image_size : { width: 1024, height: 1024 };
    return {
      images: Array.from({ length: n }, () => ({ url: `${this.url}/files/${job.id}.png`, content_type: 'image/png', width: size.width, height: size.height })),
      seed: input.seed ?? 42,
      has_nsfw_concepts: Array.from({ length: n }, () => false),
      timings: { inference: 0.01 },
    };
  }

  private file(call: RecordedCall): FakeReply {
    const [, , ext] = FAKE_FILE_PATH.exec(call.path) ?? [];
    return ext === 'mp4' ? { headers: { 'content-type': 'video/mp4' }, body: fakeMp4() } : { headers: { 'content-type': 'image/png' }, body: FAKE_PNG };
  }

  private async webhookFor(job: FakeJob) {
    const failed = job.failure !== null;
    const payload = failed
      ? { request_id: job.id, gateway_request_id: job.id, status: 'ERROR', error: `Invalid status code: ${job.failure?.status ?? 422}`, payload: { detail: [{ loc: ['body', 'prompt'], msg: job.failure?.message, type: job.failure?.code ?? 'value_error' }] } }
      : { request_id: job.id, gateway_request_id: job.id, status: 'OK', payload: this.output(job) };
    const body = JSON.stringify(payload);
    return { jobId: job.id, url: job.webhookUrl!, headers: this.signWebhook(job.id, body), body };
  }
}
