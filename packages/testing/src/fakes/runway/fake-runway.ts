/*
 * A fake Runway API, following its documented shapes (https://docs.dev.runwayml.com/api/, as generated into
 * Runway's official Node SDK `runwayml/sdk-node`: src/resources/image-to-video.ts, text-to-video.ts, tasks.ts):
 * - POST /v1/image_to_video {model, promptImage, promptText?, ratio, duration?, seed?, contentModeration?} -> {id};
 * - POST /v1/text_to_video {model, promptText, ratio, duration, ...} -> {id};
 * - GET /v1/tasks/{id} -> {id, createdAt, status: PENDING|THROTTLED|RUNNING|SUCCEEDED|FAILED|CANCELLED,
 *   progress (0..1 while RUNNING), output: [url] (SUCCEEDED), failure and failureCode (FAILED, e.g. SAFETY.INPUT.TEXT)};
 * - DELETE /v1/tasks/{id} -> 204 (cancels a running task, deletes an ended one).
 * Every request needs `Authorization: Bearer` and `X-Runway-Version: 2024-11-06`. Runway has no completion webhooks.
 * Errors are {"error": "..."} bodies. Files are served under /files.
 */
import { FakeUpstream, type FakeReply, type RecordedCall } from '../fake-upstream.js';
import { FAKE_FILE_PATH, FakeJobBook, type FakeJob, type FakeJobBookOptions } from '../video/fake-jobs.js';
import { FAKE_PNG, fakeMp4 } from '../video/fake-media.js';

export const RUNWAY_API_VERSION = '2024-11-06';
const TASK = /^\/v1\/tasks\/([0-9a-f-]{36})$/;

/** Ratios per model and endpoint, as the API reference lists them. */
const RATIOS: Readonly<Record<string, { image: readonly string[]; text: readonly string[] }>> = {
  gen4_turbo: { image: ['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672'], text: [] },
  'gen4.5': { image: ['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672'], text: ['1280:720', '720:1280'] },
  veo3: { image: ['1280:720', '720:1280'], text: ['1280:720', '720:1280', '1080:1920', '1920:1080'] },
};

export class FakeRunway {
  readonly jobs: FakeJobBook;

  private constructor(readonly upstream: FakeUpstream, options: FakeJobBookOptions) {
    this.jobs = new FakeJobBook(async () => null, options);
  }

  static async start(options: FakeJobBookOptions = {}): Promise<FakeRunway> {
    let self: FakeRunway | null = null;
    const upstream = await FakeUpstream.start([
      { method: 'POST', path: '/v1/image_to_video', handler: (c) => self!.create(c, 'image') },
      { method: 'POST', path: '/v1/text_to_video', handler: (c) => self!.create(c, 'text') },
      { method: 'GET', path: TASK, handler: (c) => self!.get(c) },
      { method: 'DELETE', path: TASK, handler: (c) => self!.remove(c) },
      { method: 'GET', path: FAKE_FILE_PATH, handler: (c) => self!.file(c) },
    ]);
    self = new FakeRunway(upstream, options);
    return self;
  }

  get url(): string {
    return this.upstream.url;
  }

  async close(): Promise<void> {
    this.jobs.close();
    await this.upstream.close();
  }

  private checkHeaders(call: RecordedCall): FakeReply | null {
    if (!call.credential?.startsWith('Bearer ')) return { status: 401, body: { error: 'Invalid API key' } };
    if (call.headers['x-runway-version'] !== RUNWAY_API_VERSION) return { status: 400, body: { error: 'Invalid or missing X-Runway-Version header' } };
    return null;
  }

  private create(call: RecordedCall, endpoint: 'image' | 'text'): FakeReply {
    const refused = this.checkHeaders(call);
    if (refused) return refused;
    const body = (call.body ?? {}) as { model?: string; ratio?: string; promptImage?: unknown; promptText?: unknown };
    const ratios = body.model ? RATIOS[body.model] : undefined;
    if (!ratios) return { status: 400, body: { error: `Validation of body failed: model ${String(body.model)} is not supported` } };
    if (!(endpoint === 'image' ? ratios.image : ratios.text).includes(body.ratio ?? '')) {
      return { status: 400, body: { error: `Validation of body failed: ratio ${String(body.ratio)} is not supported by ${body.model}` } };
    }
    if (endpoint === 'image' && typeof body.promptImage !== 'string' && !Array.isArray(body.promptImage)) return { status: 400, body: { error: 'Validation of body failed: promptImage is required' } };
    if (endpoint === 'text' && typeof body.promptText !== 'string') return { status: 400, body: { error: 'Validation of body failed: promptText is required' } };
    const job = this.jobs.submit({ model: body.model!, input: body, webhookUrl: null });
    return { body: { id: job.id } };
  }

  private get(call: RecordedCall): FakeReply {
    const refused = this.checkHeaders(call);
    if (refused) return refused;
    const job = this.jobs.jobs.get(TASK.exec(call.path)?.[1] ?? '');
    if (!job) return { status: 404, body: { error: 'Task not found' } };
    return { body: this.task(job) };
  }

  private remove(call: RecordedCall): FakeReply {
    const refused = this.checkHeaders(call);
    if (refused) return refused;
    const job = this.jobs.jobs.get(TASK.exec(call.path)?.[1] ?? '');
    if (!job) return { status: 404, body: { error: 'Task not found' } };
    if (!this.jobs.cancel(job)) this.jobs.jobs.delete(job.id);
    return { status: 204 };
  }

  task(job: FakeJob): Record<string, unknown> {
    const phase = this.jobs.phase(job);
    const base = { id: job.id, createdAt: new Date(job.createdAt).toISOString() };
    switch (phase) {
      case 'queued':
        return { ...base, status: 'PENDING' };
      case 'running':
        return { ...base, status: 'RUNNING', progress: Math.round(this.jobs.progress(job) * 100) / 100 };
      case 'succeeded':
        return { ...base, status: 'SUCCEEDED', output: [`${this.url}/files/${job.id}.mp4`] };
      case 'failed':
        return { ...base, status: 'FAILED', failure: job.failure?.message, failureCode: job.failure?.code ?? 'INTERNAL' };
      case 'cancelled':
        return { ...base, status: 'CANCELLED' };
    }
  }

  private file(call: RecordedCall): FakeReply {
    const [, , ext] = FAKE_FILE_PATH.exec(call.path) ?? [];
    return ext === 'mp4' ? { headers: { 'content-type': 'video/mp4' }, body: fakeMp4() } : { headers: { 'content-type': 'image/png' }, body: FAKE_PNG };
  }
}
