/*
 * A fake Black Forest Labs API for the adapter's tests, following BFL's documented shapes:
 * - POST /v1/flux-pro-1.1 {prompt, width?, height? (256..1440, multiples of 32), seed?, image_prompt? (base64),
 *   prompt_upsampling?, safety_tolerance? (0..6), output_format? (jpeg|png)} -> {id, polling_url}
 *   (https://docs.bfl.ml/flux_models/flux_1_1_pro);
 * - POST /v1/flux-kontext-pro {prompt, input_image?, seed?, aspect_ratio? (21:9..9:21), ...} -> {id, polling_url}
 *   (https://docs.bfl.ml/api-reference/models/edit-or-create-an-image-with-flux-kontext-pro);
 * - GET /v1/get_result?id= -> {id, status: Pending | Ready | Request Moderated | Content Moderated | Task not found | Error,
 *   result: {sample} | null, progress} (https://docs.bfl.ml/api-reference/utility/get-result);
 * - 403 without a valid `x-key`, 422 {detail: [{loc, msg, type}]} for an invalid body (https://docs.bfl.ml/api_integration/errors).
 * Results are served under /delivery/{id}.{jpeg|png}, as BFL's signed delivery URLs are.
 */
import { FAKE_PNG, FakeUpstream, type FakeReply, type RecordedCall } from '@gengate/testing';

interface Job {
  readonly endpoint: string;
  readonly body: Record<string, unknown>;
  readonly createdAt: number;
  readonly outcome: 'Ready' | 'Request Moderated' | 'Content Moderated' | 'Error';
}

const invalid = (field: string, msg: string): FakeReply => ({ status: 422, body: { detail: [{ loc: ['body', field], msg, type: 'value_error' }] } });
/** BFL takes any aspect ratio string between 21:9 and 9:21. */
function ratio(v: unknown): boolean {
  const m = typeof v === 'string' ? /^(\d+):(\d+)$/.exec(v) : null;
  if (!m) return false;
  const r = Number(m[1]) / Number(m[2]);
  return r <= 21 / 9 + 1e-9 && r >= 9 / 21 - 1e-9;
}

export class FakeBfl {
  readonly jobs = new Map<string, Job>();
  private outcomes: Job['outcome'][] = [];

  private constructor(readonly upstream: FakeUpstream, readonly apiKey: string, private readonly durationMs: number) {}

  static async start(options: { apiKey: string; durationMs?: number }): Promise<FakeBfl> {
    let self: FakeBfl | null = null;
    const upstream = await FakeUpstream.start([
      { method: 'POST', path: /^\/v1\/(flux-pro-1\.1|flux-kontext-pro)$/, handler: (c) => self!.submit(c) },
      { method: 'GET', path: '/v1/get_result', handler: (c) => self!.result(c) },
      { method: 'GET', path: /^\/delivery\/[0-9a-f-]+\.(jpeg|png)$/, handler: () => ({ headers: { 'content-type': 'image/png' }, body: FAKE_PNG }) },
    ]);
    self = new FakeBfl(upstream, options.apiKey, options.durationMs ?? 60);
    return self;
  }

  get url(): string {
    return this.upstream.url;
  }

  /** The next submitted job ends with this status instead of Ready. */
  endNextWith(outcome: Job['outcome']): void {
    this.outcomes.push(outcome);
  }

  close(): Promise<void> {
    return this.upstream.close();
  }

  private submit(call: RecordedCall): FakeReply {
    if (call.credential !== this.apiKey) return { status: 403, body: { detail: 'Not authenticated - Invalid Authentication' } };
    const body = (call.body ?? {}) as Record<string, unknown>;
    const endpoint = call.path.slice('/v1/'.length);
    if (typeof body['prompt'] !== 'string') return invalid('prompt', 'Field required');
    if (endpoint === 'flux-pro-1.1') {
      for (const side of ['width', 'height'] as const) {
        const v = body[side];
        if (v !== undefined && (typeof v !== 'number' || v < 256 || v > 1440 || v % 32 !== 0)) return invalid(side, 'must be a multiple of 32 between 256 and 1440');
      }
      if (body['input_image'] !== undefined) return invalid('input_image', 'Extra inputs are not permitted');
    } else if (body['aspect_ratio'] !== undefined && !ratio(body['aspect_ratio'])) {
      return invalid('aspect_ratio', 'Aspect ratio must be between 21:9 and 9:21');
    }
    const st = body['safety_tolerance'];
    if (st !== undefined && (typeof st !== 'number' || st < 0 || st > 6)) return invalid('safety_tolerance', 'must be between 0 and 6');
    if (body['output_format'] !== undefined && !['jpeg', 'png'].includes(String(body['output_format']))) return invalid('output_format', "must be 'jpeg' or 'png'");
    const id = crypto.randomUUID();
    this.jobs.set(id, { endpoint, body, createdAt: Date.now(), outcome: this.outcomes.shift() ?? 'Ready' });
    return { body: { id, polling_url: `${this.url}/v1/get_result?id=${id}`, cost: 4, input_mp: 0, output_mp: 1 } };
  }

  private result(call: RecordedCall): FakeReply {
    if (call.credential !== this.apiKey) return { status: 403, body: { detail: 'Not authenticated - Invalid Authentication' } };
    const id = call.query['id'] ?? '';
    const job = this.jobs.get(id);
    if (!job) return { body: { id, status: 'Task not found', result: null, progress: null } };
    const done = Date.now() - job.createdAt >= this.durationMs;
    if (!done) return { body: { id, status: 'Pending', result: null, progress: Math.round(((Date.now() - job.createdAt) / this.durationMs) * 100) / 100 } };
    if (job.outcome !== 'Ready') return { body: { id, status: job.outcome, result: null, progress: null, details: { reason: `fake ${job.outcome}` } } };
    const ext = job.body['output_format'] === 'png' ? 'png' : 'jpeg';
    return { body: { id, status: 'Ready', result: { sample: `${this.url}/delivery/${id}.${ext}`, prompt: job.body['prompt'], seed: job.body['seed'] ?? 0 }, progress: 1 } };
  }
}
