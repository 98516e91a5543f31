import { SandboxAdapter } from '@gengate/adapters';
import express, { type Express } from 'express';
import pino from 'pino';
import request, { type TestResponse } from './support/contract-request.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryGengate, MEMORY_GENGATE_BASE_URL, type MemoryGengate } from '@gengate/testing';
import { createGengateRouter } from '../src/http/create-router.js';

/**
 * The interface document's run, task, model and pricing endpoints, over the in-memory stores and the
 * sandbox: exact response keys, value types, the task lifecycle and result downloads.
 * Keys: http-keys.test.ts; billing: http-billing.test.ts; refused input: http-errors.test.ts.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MODEL_KEYS = ['description', 'id', 'is_active', 'is_popular', 'modality', 'name', 'provider', 'tags'];
const TASK_KEYS = ['created_at', 'error_message', 'result_urls', 'status', 'task_id'];
const PRICING_KEYS = ['credits_per_usd', 'currency', 'modality', 'model_id', 'prices', 'provider'];
const ALL_MODELS = ['sandbox.always-fail', 'sandbox.echo-chat', 'sandbox.motion-video', 'sandbox.pixel-image'];

interface TaskBody {
  task_id: string;
  status: string;
  result_urls: string[];
  error_message: string | null;
  created_at: string;
}
interface ModelBody {
  id: string;
  name: string;
  provider: string;
  modality: string;
  description: string;
  tags: unknown[];
  is_popular: boolean;
  is_active: boolean;
}
interface PriceLine {
  unit: string;
  resolution: string | null;
  conditions: Record<string, string | number | boolean> | null;
  credits: number;
  usd: number;
}
interface PricingBody {
  model_id: string;
  provider: string;
  modality: string;
  currency: string;
  credits_per_usd: number;
  prices: PriceLine[];
}
interface TxBody {
  id: string;
  credits: number;
  amount: number;
  payment_method: string;
  status: string;
  task_id: string | null;
}

function expectModel(m: ModelBody): void {
  expect(Object.keys(m).sort()).toEqual(MODEL_KEYS);
  for (const k of ['id', 'name', 'provider', 'modality', 'description'] as const) expect(typeof m[k], k).toBe('string');
  expect(m.id).toMatch(/^[a-z0-9-]+\.[a-z0-9.-]+$/);
  expect(['video', 'image', 'chat']).toContain(m.modality);
  expect(Array.isArray(m.tags)).toBe(true);
  for (const t of m.tags) expect(typeof t).toBe('string');
  expect(typeof m.is_popular).toBe('boolean');
  expect(typeof m.is_active).toBe('boolean');
}

function expectTask(t: TaskBody & { progress?: number }): void {
  // `progress` (0..1) is gengate's one extension, present only while generating when the provider reports it.
  const { progress, ...spec } = t;
  expect(Object.keys(spec).sort()).toEqual(TASK_KEYS);
  if (progress !== undefined) {
    expect(t.status).toBe('generating');
    expect(progress >= 0 && progress <= 1).toBe(true);
  }
  expect(t.task_id).toMatch(UUID);
  expect(['waiting', 'generating', 'success', 'fail']).toContain(t.status);
  expect(Array.isArray(t.result_urls)).toBe(true);
  expect(t.error_message === null || typeof t.error_message === 'string').toBe(true);
  expect(t.created_at).toMatch(ISO);
  expect(new Date(t.created_at).toISOString()).toBe(t.created_at);
}

/** Collects any response body as raw bytes. */
function binary(res: TestResponse, cb: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
}

describe('HTTP contract: runs, tasks, models, pricing', () => {
  let m: MemoryGengate;
  let app: Express;
  let key: string;
  const get = (path: string) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${key}`);
  const run = (model: string, body: object) => request(app).post(`/api/v1/run/${model}`).set('Authorization', `Bearer ${key}`).send(body);
  const task = async (id: string): Promise<TaskBody> => {
    const res = await get(`/run/tasks/${id}`);
    expect(res.status).toBe(200);
    expectTask(res.body as TaskBody);
    return res.body as TaskBody;
  };

  beforeEach(async () => {
    m = createMemoryGengate({ adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 100 }, statusPollIntervalMs: 10 })] });
    app = express().use('/api/v1', createGengateRouter({ gengate: m.gengate, blobStore: m.blobs, logger: pino({ level: 'silent' }) }));
    key = (await m.gengate.admin.createUser({ email: 'runner@example.com', credits: 1000 })).api_key;
  });

  describe('POST /run/{model_id} and GET /run/tasks/{task_id}', () => {
    it('accepts with exactly code 200, message, task_id, status waiting; the task polls as waiting', async () => {
      const res = await run('sandbox.echo-chat', { prompt: 'hi', generation_type: 'chat', llm_params: { temperature: 0.7, top_p: 0.9, max_tokens: 16 } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'status', 'task_id']);
      expect(res.body.code).toBe(200);
      expect(typeof res.body.message).toBe('string');
      expect(res.body.message.length).toBeGreaterThan(0);
      expect(res.body.task_id).toMatch(UUID);
      expect(res.body.status).toBe('waiting');
      const t = await task(res.body.task_id);
      expect(t).toEqual({ task_id: res.body.task_id, status: 'waiting', result_urls: [], error_message: null, created_at: expect.stringMatching(ISO) });
      expect(Math.abs(Date.parse(t.created_at) - Date.now())).toBeLessThan(60_000);
      expect(m.db.jobs.filter((j) => j.queue === 'generate' && j.payload.taskId === res.body.task_id)).toHaveLength(1);
    });

    it('holds the quoted credits while the task is unfinished', async () => {
      await run('sandbox.pixel-image', { prompt: 'fox' });
      const bal = (await get('/billing/balance')).body;
      expect(bal.credits).toBe(1000);
      expect(bal.held_credits).toBeGreaterThan(0);
      expect(bal.available_credits).toBeCloseTo(1000 - bal.held_credits, 6);
    });

    it.each([
      { model: 'sandbox.echo-chat', body: { prompt: 'Say hello', llm_params: { max_tokens: 32 } }, type: 'text/plain', magic: (b: Buffer) => b.toString('utf8').includes('Say hello') },
      { model: 'sandbox.pixel-image', body: { prompt: 'fox', image_params: { width: 64, height: 32, seed: 7 } }, type: 'image/png', magic: (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
      { model: 'sandbox.motion-video', body: { prompt: 'boat', video_params: { duration: 5, resolution: '720p', aspect_ratio: '16:9' } }, type: 'image/gif', magic: (b: Buffer) => b.subarray(0, 6).toString('latin1') === 'GIF89a' },
    ])('$model: waiting -> generating -> success, a downloadable $type result, one usage charge', async ({ model, body, type, magic }) => {
      const accepted = (await run(model, body)).body as { task_id: string };
      expect((await task(accepted.task_id)).status).toBe('waiting');

      const seen = new Set<string>();
      let drained = false;
      const draining = m.drainJobs().then(() => {
        drained = true;
      });
      const deadline = Date.now() + 10_000;
      while (!drained && Date.now() < deadline) seen.add((await task(accepted.task_id)).status);
      await draining;
      if (model === 'sandbox.motion-video') expect(seen).toContain('generating');
      expect([...seen].every((s) => s === 'waiting' || s === 'generating' || s === 'success')).toBe(true);

      const done = await task(accepted.task_id);
      expect(done.status).toBe('success');
      expect(done.error_message).toBeNull();
      expect(done.result_urls).toHaveLength(1);
      const url = done.result_urls[0] ?? '';
      expect(url.startsWith(`${MEMORY_GENGATE_BASE_URL}/api/v1/files/${accepted.task_id}/`)).toBe(true);

      // Result files need no API key: they are capability URLs, stable and immutable.
      const file = await request(app).get(url.slice(MEMORY_GENGATE_BASE_URL.length)).buffer(true).parse(binary);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toContain(type);
      expect(file.headers['cache-control']).toContain('immutable');
      const bytes = file.body as Buffer;
      expect(Number(file.headers['content-length'])).toBe(bytes.byteLength);
      expect(magic(bytes)).toBe(true);
      const again = await request(app).get(url.slice(MEMORY_GENGATE_BASE_URL.length)).buffer(true).parse(binary);
      expect((again.body as Buffer).equals(bytes)).toBe(true);

      const tx = (await get('/billing/transactions')).body as { data: TxBody[] };
      const usage = tx.data.filter((t) => t.payment_method === 'usage');
      expect(usage).toHaveLength(1);
      expect(usage[0]).toMatchObject({ status: 'completed', task_id: accepted.task_id });
      expect(usage[0]?.credits).toBeLessThan(0);
      expect(usage[0]?.amount).toBeGreaterThanOrEqual(0);
      expect(tx.data[0]?.payment_method).toBe('usage'); // newest first
      const bal = (await get('/billing/balance')).body;
      expect(bal.held_credits).toBe(0);
      expect(bal.credits).toBeCloseTo(1000 + (usage[0]?.credits ?? 0), 6);
    });

    it('a failing task ends in fail with a message, no result, no usage transaction and its hold released', async () => {
      const accepted = (await run('sandbox.always-fail', {})).body as { task_id: string };
      expect((await get('/billing/balance')).body.held_credits).toBeGreaterThan(0);
      const txBefore = m.db.transactions.length;
      await m.drainJobs();
      const t = await task(accepted.task_id);
      expect(t.status).toBe('fail');
      expect(typeof t.error_message).toBe('string');
      expect(t.error_message?.length).toBeGreaterThan(0);
      expect(t.result_urls).toEqual([]);
      expect(m.db.transactions.length).toBe(txBefore);
      const tx = (await get('/billing/transactions')).body as { data: TxBody[] };
      expect(tx.data.some((x) => x.payment_method === 'usage')).toBe(false);
      expect((await get('/billing/balance')).body).toEqual({ credits: 1000, currency: 'USD', held_credits: 0, available_credits: 1000 });
    });

    it('serves no file for an unknown task or name, without needing a key', async () => {
      for (const path of ['/api/v1/files/00000000-0000-4000-8000-000000000000/output-0.png', '/api/v1/files/not-a-task/output-0.png']) {
        const res = await request(app).get(path);
        expect(res.status).toBe(404);
        expect(res.body.error.type).toBe('not_found');
      }
    });
  });

  describe('GET /models', () => {
    const ids = async (q: string): Promise<string[]> => {
      const res = await get(`/models${q}`);
      expect(res.status, q).toBe(200);
      return (res.body.data as ModelBody[]).map((x) => x.id);
    };

    it('answers data, page, per_page, total, total_pages with defaults page 1 and per_page 20', async () => {
      const res = await get('/models');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'page', 'per_page', 'total', 'total_pages']);
      expect(res.body).toMatchObject({ page: 1, per_page: 20, total: 4, total_pages: 1 });
      for (const model of res.body.data as ModelBody[]) expectModel(model);
      expect((res.body.data as ModelBody[]).map((x) => x.id)).toEqual(ALL_MODELS);
    });

    it('pages with per_page and page', async () => {
      const p2 = await get('/models?per_page=2&page=2');
      expect(p2.body).toMatchObject({ page: 2, per_page: 2, total: 4, total_pages: 2 });
      expect((p2.body.data as ModelBody[]).map((x) => x.id)).toEqual(ALL_MODELS.slice(2));
      const p3 = await get('/models?per_page=2&page=3');
      expect(p3.body).toMatchObject({ page: 3, per_page: 2, total: 4, total_pages: 2, data: [] });
      expect((await get('/models?per_page=100')).status).toBe(200);
    });

    it('filters: repeated task is OR, provider, full-text search over name and description', async () => {
      expect(await ids('?task=video')).toEqual(['sandbox.motion-video']);
      expect(await ids('?task=video&task=image')).toEqual(['sandbox.always-fail', 'sandbox.motion-video', 'sandbox.pixel-image']);
      expect(await ids('?provider=sandbox')).toEqual(ALL_MODELS);
      expect(await ids('?provider=elsewhere')).toEqual([]);
      expect(await ids('?search=gif')).toEqual(['sandbox.motion-video']); // description only
      expect(await ids('?search=Pixel')).toEqual(['sandbox.pixel-image']); // name, case-insensitive
      expect(await ids('?task=chat&search=gif')).toEqual([]);
      expect((await get('/models?search=zzz-nothing')).body).toMatchObject({ data: [], total: 0, total_pages: 0 });
    });

    it.each(['per_page=0', 'per_page=1000', 'per_page=abc', 'page=0', 'page=-1', 'task=audio'])('refuses %s with 400', async (q) => {
      const res = await get(`/models?${q}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, message: expect.any(String), error: { type: 'invalid_request', param: q.split('=')[0] } });
    });
  });

  describe('model details, popular and pricing', () => {
    it('GET /models/{id} answers the Model fields, plus capabilities, the parameters schema and the polling interval', async () => {
      for (const id of ALL_MODELS) {
        const res = await get(`/models/${id}`);
        expect(res.status).toBe(200);
        const { capabilities, parameters, inactive_reason, poll_interval_seconds, ...model } = res.body as ModelBody & Record<string, unknown>;
        expectModel(model as ModelBody);
        expect(res.body.id).toBe(id);
        expect(inactive_reason).toBeNull();
        expect(typeof poll_interval_seconds).toBe('number');
        expect((capabilities as { modality: string }).modality).toBe(model.modality);
        expect(parameters).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false });
      }
      const video = (await get('/models/sandbox.motion-video')).body as { parameters: { properties: Record<string, { properties: Record<string, unknown> }> } };
      expect(video.parameters.properties['video_params']?.properties['duration']).toEqual({ type: 'number', enum: [5, 10] });
      expect((await get('/models/sandbox.motion-video')).body).toMatchObject({ provider: 'sandbox', modality: 'video', is_active: true, is_popular: true });
      const missing = await get('/models/sandbox.nope');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 404, message: expect.any(String), error: { type: 'model_not_found', param: 'model_id' } });
    });

    it('GET /models/popular answers {data} of active popular models', async () => {
      const res = await get('/models/popular');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['data']);
      const data = res.body.data as ModelBody[];
      expect(data.length).toBeGreaterThan(0);
      for (const model of data) {
        expectModel(model);
        expect(model.is_popular && model.is_active).toBe(true);
      }
      expect(data.map((x) => x.id)).not.toContain('sandbox.always-fail');
    });

    it('GET /models/{id}/pricing answers a pricing record; GET /pricing one per active model', async () => {
      const expected: Record<string, PriceLine[]> = {
        'sandbox.echo-chat': [
          { unit: '1M_input_tokens', resolution: null, conditions: null, credits: 10, usd: 0.1 },
          { unit: '1M_output_tokens', resolution: null, conditions: null, credits: 30, usd: 0.3 },
        ],
        'sandbox.pixel-image': [
          { unit: 'image', resolution: null, conditions: null, credits: 2, usd: 0.02 },
          { unit: 'image_above_1mp', resolution: null, conditions: null, credits: 4, usd: 0.04 },
        ],
        'sandbox.motion-video': [
          { unit: 'second', resolution: '720p', conditions: null, credits: 5, usd: 0.05 },
          { unit: 'second', resolution: '1080p', conditions: null, credits: 8, usd: 0.08 },
        ],
      };
      const all = await get('/pricing');
      expect(all.status).toBe(200);
      expect(Object.keys(all.body)).toEqual(['data']);
      const records = all.body.data as PricingBody[];
      expect(records.map((p) => p.model_id)).toEqual(ALL_MODELS);
      for (const record of records) {
        const one = await get(`/models/${record.model_id}/pricing`);
        expect(one.status).toBe(200);
        expect(one.body).toEqual(record);
        expect(Object.keys(record).sort()).toEqual(PRICING_KEYS);
        expect(record).toMatchObject({ provider: 'sandbox', currency: 'USD', credits_per_usd: 100 });
        for (const line of record.prices) {
          expect(Object.keys(line).sort()).toEqual(['conditions', 'credits', 'resolution', 'unit', 'usd']);
          expect(line.usd).toBeCloseTo(line.credits / record.credits_per_usd, 9);
        }
        const want = expected[record.model_id];
        if (want) expect(record.prices).toEqual(want);
      }
      expect((await get('/models/sandbox.nope/pricing')).body.error).toEqual({ type: 'model_not_found', param: 'model_id' });
    });
  });
});
