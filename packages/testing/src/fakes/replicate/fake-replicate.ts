/*
 * A fake Replicate, following its documented HTTP API (https://replicate.com/docs/reference/http):
 * - POST /v1/models/{owner}/{name}/predictions with {input, webhook?, webhook_events_filter?} (201, the prediction;
 *   with `Prefer: wait` the answer waits for a quick prediction to finish, as @ai-sdk/replicate's image model asks);
 * - GET /v1/predictions/{id}: the prediction object {id, model, version, input, logs, output, error, status:
 *   starting|processing|succeeded|failed|canceled, created_at, started_at, completed_at, urls: {get, cancel, web}, metrics};
 * - POST /v1/predictions/{id}/cancel; GET /v1/webhooks/default/secret ({"key": "whsec_..."});
 * - webhooks (https://replicate.com/docs/topics/webhooks, .../verify-webhook): a POST of the prediction to `webhook`
 *   for the `completed` event, signed with the Standard Webhooks scheme (webhook-id, webhook-timestamp,
 *   webhook-signature = v1,base64(HMAC-SHA256(secret, "{id}.{timestamp}.{body}"))).
 * Errors use Replicate's problem-details bodies ({title, detail, status}). Files are served under /files.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { FakeUpstream, type FakeReply, type RecordedCall } from '../fake-upstream.js';
import { FAKE_FILE_PATH, FakeJobBook, type FakeJob, type FakeJobBookOptions } from '../video/fake-jobs.js';
import { FAKE_PNG, fakeMp4 } from '../video/fake-media.js';

export interface FakeReplicateOptions extends FakeJobBookOptions {
  /** The account's webhook signing secret; default a random whsec_ secret. */
  readonly webhookSecret?: string;
}

const PREDICTION = /^\/v1\/predictions\/([0-9a-z]+)(\/cancel)?$/;
const CREATE = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/;

function isImageModel(model: string): boolean {
  return /flux|image|sdxl/.test(model);
}

/** Replicate-style prediction ids: lower-case alphanumerics. */
function predictionId(): string {
  return randomBytes(13).toString('hex').slice(0, 26);
}

export class FakeReplicate {
  readonly jobs: FakeJobBook;
  readonly webhookSecret: string;

  private constructor(
    readonly upstream: FakeUpstream,
    options: FakeReplicateOptions,
  ) {
    this.webhookSecret = options.webhookSecret ?? `whsec_${randomBytes(24).toString('base64')}`;
    this.jobs = new FakeJobBook((job) => this.webhookFor(job), options);
  }

  static async start(options: FakeReplicateOptions = {}): Promise<FakeReplicate> {
    let self: FakeReplicate | null = null;
    const upstream = await FakeUpstream.start([
      { method: 'GET', path: '/v1/webhooks/default/secret', handler: () => ({ body: { key: self!.webhookSecret } }) },
      { method: 'POST', path: CREATE, handler: (c) => self!.create(c) },
      { method: 'GET', path: PREDICTION, handler: (c) => self!.get(c) },
      { method: 'POST', path: PREDICTION, handler: (c) => self!.cancel(c) },
      { method: 'GET', path: FAKE_FILE_PATH, handler: (c) => self!.file(c) },
    ]);
    self = new FakeReplicate(upstream, options);
    return self;
  }

  get url(): string {
    return this.upstream.url;
  }
  /** What to configure as REPLICATE_BASE_URL. */
  get baseUrl(): string {
    return `${this.upstream.url}/v1`;
  }

  async close(): Promise<void> {
    this.jobs.close();
    await this.upstream.close();
  }

  /** Signs a body as Replicate signs its webhooks (for tests that forge or replay one). */
  signWebhook(webhookId: string, body: string, at: Date = new Date()): Record<string, string> {
    // Standard Webhooks (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md#signature-scheme):
    // v1,base64(HMAC-SHA256(base64-decoded secret after "whsec_", "{id}.{timestamp}.{body}")). Written here with
    // node:crypto, independent of the standardwebhooks library the adapter verifies with.
    const timestamp = String(Math.floor(at.getTime() / 1000));
    const key = Buffer.from(this.webhookSecret.replace(/^whsec_/, ''), 'base64');
    const signature = `v1,${createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`;
    return { 'content-type': 'application/json', 'webhook-id': webhookId, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
  }

  private create(call: RecordedCall): FakeReply {
    const [, owner, name] = CREATE.exec(call.path) ?? [];
    const body = call.body as { input?: Record<string, unknown>; webhook?: string; webhook_events_filter?: string[] } | null;
    if (!body || typeof body.input !== 'object' || body.input === null) {
      return { status: 422, body: { title: 'Input validation failed', detail: '- input: Input is required', status: 422 } };
    }
    const model = `${owner}/${name}`;
    const image = isImageModel(model);
    const wantsCompleted = !body.webhook_events_filter || body.webhook_events_filter.includes('completed');
    const job = this.jobs.submit({
      id: predictionId(),
      model,
      input: body.input,
      webhookUrl: body.webhook && wantsCompleted ? body.webhook : null,
      ...(image ? { durationMs: 0 } : {}),
    });
    const prefersWait = /wait/.test(call.headers['prefer'] ?? '');
    return { status: 201, body: this.prediction(job, prefersWait ? Date.now() + 1 : Date.now()) };
  }

  private get(call: RecordedCall): FakeReply {
    const [, id, cancel] = PREDICTION.exec(call.path) ?? [];
    const job = id ? this.jobs.jobs.get(id) : undefined;
    if (!job || cancel) return { status: 404, body: { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 } };
    return { body: this.prediction(job) };
  }

  private cancel(call: RecordedCall): FakeReply {
    const [, id, cancel] = PREDICTION.exec(call.path) ?? [];
    const job = id ? this.jobs.jobs.get(id) : undefined;
    if (!job || !cancel) return { status: 404, body: { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 } };
    this.jobs.cancel(job);
    return { body: this.prediction(job) };
  }

  prediction(job: FakeJob, now = Date.now()): Record<string, unknown> {
    const phase = this.jobs.phase(job, now);
    const status = { queued: 'starting', running: 'processing', succeeded: 'succeeded', failed: 'failed', cancelled: 'canceled' }[phase];
    const ended = phase === 'succeeded' || phase === 'failed' || phase === 'cancelled';
    const steps = 20;
    const done = Math.round(this.jobs.progress(job, now) * steps);
    const logs = phase === 'queued' ? '' : `Generating video...\n${Math.round((done / steps) * 100)}%|${'█'.repeat(done)}${' '.repeat(steps - done)}| ${done}/${steps} [00:01<00:01]\n`;
    const image = isImageModel(job.model);
    const output = phase !== 'succeeded' ? null : image ? [`${this.url}/files/${job.id}.png`] : `${this.url}/files/${job.id}.mp4`;
    return {
      id: job.id,
      model: job.model,
      version: 'hidden',
      input: job.input,
      logs,
      output,
      data_removed: false,
      error: phase === 'failed' ? job.failure?.message : null,
      status,
      created_at: new Date(job.createdAt).toISOString(),
      started_at: phase === 'queued' ? null : new Date(job.createdAt + job.durationMs * this.jobs.queuedFraction).toISOString(),
      completed_at: ended ? new Date(now).toISOString() : null,
      urls: { get: `${this.baseUrl}/predictions/${job.id}`, cancel: `${this.baseUrl}/predictions/${job.id}/cancel`, web: `https://replicate.com/p/${job.id}` },
      metrics: ended ? { predict_time: job.durationMs / 1000, total_time: job.durationMs / 1000 } : {},
    };
  }

  private file(call: RecordedCall): FakeReply {
    const [, , ext] = FAKE_FILE_PATH.exec(call.path) ?? [];
    return ext === 'mp4' ? { headers: { 'content-type': 'video/mp4' }, body: fakeMp4() } : { headers: { 'content-type': 'image/png' }, body: FAKE_PNG };
  }

  private async webhookFor(job: FakeJob) {
    const body = JSON.stringify(this.prediction(job, job.createdAt + job.durationMs));
    return { jobId: job.id, url: job.webhookUrl!, headers: this.signWebhook(`msg_${predictionId()}`, body), body };
  }
}
