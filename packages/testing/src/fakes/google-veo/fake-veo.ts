/*
 * A fake Gemini API for Veo video, following Google's documented long-running flow
 * (https://ai.google.dev/gemini-api/docs/video, REST tab):
 * - POST /v1beta/models/{model}:predictLongRunning with `x-goog-api-key` and {instances: [{prompt, image?}],
 *   parameters: {aspectRatio, resolution, durationSeconds, negativePrompt, personGeneration, sampleCount}} ->
 *   {name: "models/{model}/operations/{id}"};
 * - GET /v1beta/{operation name} -> {name, done: false} while running, then {name, done: true, response:
 *   {generateVideoResponse: {generatedSamples: [{video: {uri}}]}}} or {name, done: true, error: {code, message}};
 *   a prompt blocked by safety filters ends with no samples and `raiMediaFilteredReasons`;
 * - the video URI is downloaded with the API key (GET .../files/{id}:download?alt=media).
 * Errors are Google's {error: {code, message, status}} bodies. Veo has no completion webhooks.
 */
import { FakeUpstream, type FakeReply, type RecordedCall } from '../fake-upstream.js';
import { FakeJobBook, type FakeJob, type FakeJobBookOptions } from '../video/fake-jobs.js';
import { fakeMp4 } from '../video/fake-media.js';

const START = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/;
const OPERATION = /^\/v1beta\/models\/([^/]+)\/operations\/([0-9a-z]+)$/;
const DOWNLOAD = /^\/v1beta\/files\/([0-9a-z]+):download$/;

export class FakeVeo {
  readonly jobs: FakeJobBook;

  private constructor(readonly upstream: FakeUpstream, options: FakeJobBookOptions) {
    this.jobs = new FakeJobBook(async () => null, options);
  }

  static async start(options: FakeJobBookOptions = {}): Promise<FakeVeo> {
    let self: FakeVeo | null = null;
    const upstream = await FakeUpstream.start([
      { method: 'POST', path: START, handler: (c) => self!.start(c) },
      { method: 'GET', path: OPERATION, handler: (c) => self!.operation(c) },
      { method: 'GET', path: DOWNLOAD, handler: (c) => self!.download(c) },
    ]);
    self = new FakeVeo(upstream, options);
    return self;
  }

  get url(): string {
    return this.upstream.url;
  }
  /** What to configure as the Gemini API base URL. */
  get baseUrl(): string {
    return `${this.upstream.url}/v1beta`;
  }

  async close(): Promise<void> {
    this.jobs.close();
    await this.upstream.close();
  }

  private authorized(call: RecordedCall): boolean {
    return call.credential !== null && call.credential.length > 0;
  }

  private start(call: RecordedCall): FakeReply {
    if (!this.authorized(call)) return { status: 403, body: { error: { code: 403, message: 'Method doesn\'t allow unregistered callers.', status: 'PERMISSION_DENIED' } } };
    const model = START.exec(call.path)?.[1] ?? '';
    const body = call.body as { instances?: { prompt?: string }[]; parameters?: Record<string, unknown> } | null;
    if (!body?.instances?.[0]?.prompt) return { status: 400, body: { error: { code: 400, message: 'prompt is required', status: 'INVALID_ARGUMENT' } } };
    const id = crypto.randomUUID().replaceAll('-', '').slice(0, 16);
    const job = this.jobs.submit({ id, model, input: body, webhookUrl: null });
    return { body: { name: `models/${model}/operations/${job.id}` } };
  }

  private operation(call: RecordedCall): FakeReply {
    if (!this.authorized(call)) return { status: 403, body: { error: { code: 403, message: 'API key not valid.', status: 'PERMISSION_DENIED' } } };
    const [, model, id] = OPERATION.exec(call.path) ?? [];
    const job = id ? this.jobs.jobs.get(id) : undefined;
    if (!job || job.model !== model) return { status: 404, body: { error: { code: 404, message: 'Operation not found', status: 'NOT_FOUND' } } };
    return { body: this.operationBody(job) };
  }

  private operationBody(job: FakeJob): Record<string, unknown> {
    const name = `models/${job.model}/operations/${job.id}`;
    const phase = this.jobs.phase(job);
    if (phase === 'queued' || phase === 'running') return { name, done: false };
    if (phase === 'failed') {
      if (job.failure?.code === 'RAI') {
        return { name, done: true, response: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse', generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: [job.failure.message] } } };
      }
      return { name, done: true, error: { code: 3, message: job.failure?.message ?? 'failed' } };
    }
    return {
      name,
      done: true,
      response: {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
        generateVideoResponse: { generatedSamples: [{ video: { uri: `${this.baseUrl}/files/${job.id}:download?alt=media` } }] },
      },
    };
  }

  private download(call: RecordedCall): FakeReply {
    if (!call.query['key'] && !this.authorized(call)) return { status: 403, body: { error: { code: 403, message: 'API key required', status: 'PERMISSION_DENIED' } } };
    const id = DOWNLOAD.exec(call.path)?.[1];
    if (!id || !this.jobs.jobs.has(id)) return { status: 404, body: { error: { code: 404, message: 'File not found', status: 'NOT_FOUND' } } };
    return { headers: { 'content-type': 'video/mp4' }, body: fakeMp4(8) };
  }
}
