/*
 * A fake Luma Dream Machine API for the adapter's tests, following Luma's documented shapes
 * (https://docs.lumalabs.ai/reference):
 * - POST /dream-machine/v1/generations {prompt, model: ray-2 | ray-flash-2, resolution: 540p | 720p | 1080p | 4k,
 *   duration: 5s | 9s, aspect_ratio: 1:1 | 16:9 | 9:16 | 4:3 | 3:4 | 21:9 | 9:21, loop?, keyframes?.frame0 {type, url},
 *   callback_url?} -> 201 Generation {id, state: queued, failure_reason: null, assets: null};
 * - GET /dream-machine/v1/generations/{id} -> Generation {state: queued | dreaming | completed | failed,
 *   failure_reason, assets.video};
 * - DELETE /dream-machine/v1/generations/{id} -> 204; 401 without a Bearer key, 400 {detail} for an invalid body.
 * Videos are served under /files/{id}.mp4.
 */
import { FAKE_FILE_PATH, FakeJobBook, fakeMp4, FakeUpstream, type FakeJob, type FakeReply, type RecordedCall } from '@gengate/testing';

const GENERATION = /^\/dream-machine\/v1\/generations\/([0-9a-f-]{36})$/;
const ALLOWED: Readonly<Record<string, readonly unknown[]>> = {
  model: ['ray-2', 'ray-flash-2'],
  resolution: ['540p', '720p', '1080p', '4k'],
  duration: ['5s', '9s'],
  aspect_ratio: ['1:1', '16:9', '9:16', '4:3', '3:4', '21:9', '9:21'],
};
const KNOWN = new Set(['prompt', 'loop', 'keyframes', 'callback_url', ...Object.keys(ALLOWED)]);

export class FakeLuma {
  readonly jobs = new FakeJobBook(async () => null, { durationMs: 120 });

  private constructor(readonly upstream: FakeUpstream, readonly apiKey: string) {}

  static async start(apiKey: string): Promise<FakeLuma> {
    let self: FakeLuma | null = null;
    const upstream = await FakeUpstream.start([
      { method: 'POST', path: '/dream-machine/v1/generations', handler: (c) => self!.create(c) },
      { method: 'GET', path: GENERATION, handler: (c) => self!.read(c) },
      { method: 'DELETE', path: GENERATION, handler: (c) => self!.remove(c) },
      { method: 'GET', path: FAKE_FILE_PATH, handler: () => ({ headers: { 'content-type': 'video/mp4' }, body: fakeMp4() }) },
    ]);
    self = new FakeLuma(upstream, apiKey);
    return self;
  }

  get url(): string {
    return this.upstream.url;
  }

  async close(): Promise<void> {
    this.jobs.close();
    await this.upstream.close();
  }

  private create(call: RecordedCall): FakeReply {
    if (call.credential !== `Bearer ${this.apiKey}`) return { status: 401, body: { detail: 'Invalid API key' } };
    const body = (call.body ?? {}) as Record<string, unknown>;
    if (typeof body['prompt'] !== 'string') return { status: 400, body: { detail: 'prompt: field required' } };
    for (const key of Object.keys(body)) if (!KNOWN.has(key)) return { status: 400, body: { detail: `${key}: extra inputs are not permitted` } };
    for (const [key, values] of Object.entries(ALLOWED)) {
      if (body[key] !== undefined && !values.includes(body[key])) return { status: 400, body: { detail: `${key}: invalid value ${JSON.stringify(body[key])}` } };
    }
    if (body['loop'] !== undefined && typeof body['loop'] !== 'boolean') return { status: 400, body: { detail: 'loop: must be a boolean' } };
    const frame = (body['keyframes'] as { frame0?: { type?: unknown; url?: unknown } } | undefined)?.frame0;
    if (body['keyframes'] !== undefined && (frame?.type !== 'image' || typeof frame.url !== 'string')) return { status: 400, body: { detail: 'keyframes.frame0: invalid' } };
    const job = this.jobs.submit({ model: String(body['model'] ?? 'ray-2'), input: body, webhookUrl: null });
    return { status: 201, body: this.generation(job) };
  }

  private read(call: RecordedCall): FakeReply {
    if (call.credential !== `Bearer ${this.apiKey}`) return { status: 401, body: { detail: 'Invalid API key' } };
    const job = this.jobs.jobs.get(GENERATION.exec(call.path)?.[1] ?? '');
    return job ? { body: this.generation(job) } : { status: 404, body: { detail: 'Generation not found' } };
  }

  private remove(call: RecordedCall): FakeReply {
    if (call.credential !== `Bearer ${this.apiKey}`) return { status: 401, body: { detail: 'Invalid API key' } };
    const job = this.jobs.jobs.get(GENERATION.exec(call.path)?.[1] ?? '');
    if (!job) return { status: 404, body: { detail: 'Generation not found' } };
    this.jobs.cancel(job);
    this.jobs.jobs.delete(job.id);
    return { status: 204 };
  }

  private generation(job: FakeJob): Record<string, unknown> {
    const base = { id: job.id, generation_type: 'video', model: job.model, created_at: new Date(job.createdAt).toISOString(), request: job.input };
    switch (this.jobs.phase(job)) {
      case 'queued':
        return { ...base, state: 'queued', failure_reason: null, assets: null };
      case 'running':
        return { ...base, state: 'dreaming', failure_reason: null, assets: null };
      case 'succeeded':
        return { ...base, state: 'completed', failure_reason: null, assets: { video: `${this.url}/files/${job.id}.mp4` } };
      case 'failed':
      case 'cancelled':
        return { ...base, state: 'failed', failure_reason: job.failure?.message ?? 'cancelled', assets: null };
    }
  }
}
