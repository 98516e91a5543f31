import { SandboxAdapter } from '@gengate/adapters';
import express, { type Express } from 'express';
import pino from 'pino';
import request, { type TestResponse } from './support/contract-request.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryGengate, type MemoryGengate } from '@gengate/testing';
import { createGengateRouter } from '../src/http/create-router.js';

/**
 * Refused requests: the JSON error body `{code, message, error: {type, param}}`, the right status, and
 * nothing created (no task, hold, transaction or job). Also request ids, unknown paths and wrong methods.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface ErrorBody {
  code: number;
  message: string;
  error: { type: string; param: string | null };
}

describe('HTTP contract: errors', () => {
  let m: MemoryGengate;
  let app: Express;
  let key: string;
  const get = (path: string, secret = key) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${secret}`);

  beforeEach(async () => {
    m = createMemoryGengate({ adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 50 }, statusPollIntervalMs: 10 })] });
    app = express().use('/api/v1', createGengateRouter({ gengate: m.gengate, blobStore: m.blobs, logger: pino({ level: 'silent' }) }));
    key = (await m.gengate.admin.createUser({ email: 'errors@example.com', credits: 1000 })).api_key;
  });

  function counts() {
    return { tasks: m.db.tasks.size, transactions: m.db.transactions.length, holds: m.db.holds.size, jobs: m.db.jobs.length };
  }

  function expectError(res: TestResponse, status: number, type: string, param?: string | null): void {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.body as ErrorBody;
    expect(Object.keys(body).sort()).toEqual(['code', 'error', 'message']);
    expect(Object.keys(body.error).sort()).toEqual(['param', 'type']);
    expect(body.code).toBe(status);
    expect(typeof body.message).toBe('string');
    expect(body.message.length).toBeGreaterThan(0);
    expect(body.error.type).toBe(type);
    if (param !== undefined) expect(body.error.param).toBe(param);
    else expect(body.error.param === null || typeof body.error.param === 'string').toBe(true);
  }

  /** Sends the request and checks the error body and that the stores did not change. */
  async function refused(send: () => Promise<TestResponse>, status: number, type: string, param?: string | null): Promise<void> {
    const before = counts();
    expectError(await send(), status, type, param);
    expect(counts()).toEqual(before);
  }

  const run = (model: string, body: unknown, secret = key) =>
    request(app).post(`/api/v1/run/${model}`).set('Authorization', `Bearer ${secret}`).send(body as object);

  describe('POST /run/{model_id} refuses bad input and creates nothing', () => {
    it.each([
      ['temperature 2.5', 'sandbox.echo-chat', { prompt: 'x', llm_params: { temperature: 2.5 } }, 'invalid_request', 'llm_params.temperature'],
      ['temperature -0.5', 'sandbox.echo-chat', { prompt: 'x', llm_params: { temperature: -0.5 } }, 'invalid_request', 'llm_params.temperature'],
      ['top_p 1.5', 'sandbox.echo-chat', { prompt: 'x', llm_params: { top_p: 1.5 } }, 'invalid_request', 'llm_params.top_p'],
      ['max_tokens above the model maximum', 'sandbox.echo-chat', { prompt: 'x', llm_params: { max_tokens: 5000 } }, 'unsupported_parameter', 'llm_params.max_tokens'],
      ['duration 7 on the video model', 'sandbox.motion-video', { prompt: 'x', video_params: { duration: 7 } }, 'unsupported_parameter', 'video_params.duration'],
      ["aspect_ratio '21:9' (a ratio this model does not offer)", 'sandbox.motion-video', { prompt: 'x', video_params: { aspect_ratio: '21:9' } }, 'unsupported_parameter', 'video_params.aspect_ratio'],
      ["aspect_ratio 'wide' (not a ratio)", 'sandbox.motion-video', { prompt: 'x', video_params: { aspect_ratio: 'wide' } }, 'invalid_request', 'video_params.aspect_ratio'],
      ["resolution '4k' (a resolution this model does not offer)", 'sandbox.motion-video', { prompt: 'x', video_params: { resolution: '4k' } }, 'unsupported_parameter', 'video_params.resolution'],
      ["resolution 'huge' (not a resolution)", 'sandbox.motion-video', { prompt: 'x', video_params: { resolution: 'huge' } }, 'invalid_request', 'video_params.resolution'],
      ['provider_params the model does not take', 'sandbox.pixel-image', { prompt: 'x', provider_params: { quality: 'high' } }, 'unsupported_parameter', 'provider_params.quality'],
      ['provider_params that is not an object', 'sandbox.pixel-image', { prompt: 'x', provider_params: 'high' }, 'invalid_request', 'provider_params'],
      ['a reference image on loopback', 'sandbox.motion-video', { prompt: 'x', video_params: { image_urls: ['http://127.0.0.1:8080/frame.png'] } }, 'invalid_request', 'video_params.image_urls'],
      ['a reference image at the metadata address', 'sandbox.pixel-image', { prompt: 'x', image_params: { image_urls: ['http://169.254.169.254/latest/meta-data'] } }, 'invalid_request', 'image_params.image_urls'],
      ['image_params.n above the model maximum', 'sandbox.pixel-image', { prompt: 'x', image_params: { n: 5 } }, 'unsupported_parameter', 'image_params.n'],
      ['unknown video_params field', 'sandbox.motion-video', { prompt: 'x', video_params: { fps: 60 } }, 'invalid_request', 'video_params.fps'],
      ['unknown root field', 'sandbox.echo-chat', { prompt: 'x', stream: true }, 'invalid_request', 'stream'],
      ['video_params sent to the chat model', 'sandbox.echo-chat', { prompt: 'x', video_params: { duration: 5 } }, 'unsupported_parameter', 'video_params'],
      ['llm_params sent to the image model', 'sandbox.pixel-image', { prompt: 'x', llm_params: { temperature: 1 } }, 'unsupported_parameter', 'llm_params'],
      ['generation_type of another modality', 'sandbox.echo-chat', { prompt: 'x', generation_type: 'video' }, 'invalid_request', 'generation_type'],
      ['missing prompt', 'sandbox.echo-chat', {}, 'invalid_request', 'prompt'],
      ['blank prompt', 'sandbox.pixel-image', { prompt: '   ' }, 'invalid_request', 'prompt'],
      ['prompt of the wrong type', 'sandbox.echo-chat', { prompt: ['x'] }, 'invalid_request', 'prompt'],
      ['image width outside the model range', 'sandbox.pixel-image', { prompt: 'x', image_params: { width: 4000, height: 64 } }, 'unsupported_parameter', 'image_params.width'],
      ['callback_url that is not http(s)', 'sandbox.echo-chat', { prompt: 'x', callback_url: 'ftp://example.com/x' }, 'invalid_request', 'callback_url'],
      ['a JSON array body', 'sandbox.echo-chat', [{ prompt: 'x' }], 'invalid_request', null],
    ])('%s -> 400', async (_label, model, body, type, param) => {
      await refused(() => run(model, body), 400, type, param);
    });

    it('a non-JSON body labelled application/json -> 400 invalid_json', async () => {
      const send = () => request(app).post('/api/v1/run/sandbox.echo-chat').set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json').send('{"prompt": "x",');
      await refused(send, 400, 'invalid_json', null);
    });

    it('a text/plain body -> 415 unsupported_media_type', async () => {
      const send = () => request(app).post('/api/v1/run/sandbox.echo-chat').set('Authorization', `Bearer ${key}`).set('Content-Type', 'text/plain').send('prompt=x');
      await refused(send, 415, 'unsupported_media_type', null);
    });

    it('a body over 1 MiB -> 413 payload_too_large', async () => {
      await refused(() => run('sandbox.echo-chat', { prompt: 'x'.repeat(1_100_000) }), 413, 'payload_too_large', null);
    });

    it('an unknown model -> 404 model_not_found', async () => {
      await refused(() => run('sandbox.no-such-model', { prompt: 'x' }), 404, 'model_not_found', 'model_id');
      await refused(() => run('nodots', { prompt: 'x' }), 404, 'model_not_found', 'model_id');
    });

    it('insufficient credits -> 402, for a user with 0 credits and when holds use up the balance', async () => {
      const broke = (await m.gengate.admin.createUser({ email: 'broke@example.com', credits: 0 })).api_key;
      await refused(() => run('sandbox.pixel-image', { prompt: 'x' }, broke), 402, 'insufficient_credits');
      const tight = (await m.gengate.admin.createUser({ email: 'tight@example.com', credits: 3 })).api_key;
      expect((await run('sandbox.pixel-image', { prompt: 'first' }, tight)).status).toBe(200); // holds 2 of 3
      await refused(() => run('sandbox.pixel-image', { prompt: 'second' }, tight), 402, 'insufficient_credits');
      expect((await get('/billing/balance', tight)).body).toEqual({ credits: 3, currency: 'USD', held_credits: 2, available_credits: 1 });
    });
  });

  describe('authentication', () => {
    it.each([
      ['missing header', undefined],
      ['malformed header', 'Token abc'],
      ['empty bearer', 'Bearer '],
      ['two tokens', `Bearer gg_live_${'A'.repeat(43)} extra`],
      ['unknown well-formed key', `Bearer gg_live_${'A'.repeat(43)}`],
      ['foreign key shape', 'Bearer sk-live-1234567890'],
    ])('%s -> 401 authentication_failed, nothing created', async (_label, header) => {
      await refused(
        () => {
          const req = request(app).post('/api/v1/run/sandbox.echo-chat');
          return (header === undefined ? req : req.set('Authorization', header)).send({ prompt: 'x' });
        },
        401,
        'authentication_failed',
        null,
      );
      const read = request(app).get('/api/v1/billing/balance');
      expectError(await (header === undefined ? read : read.set('Authorization', header)), 401, 'authentication_failed', null);
    });

    it('a 401 body never echoes the presented secret', async () => {
      const res = await request(app).get('/api/v1/models').set('Authorization', 'Bearer sk-live-1234567890');
      expect(JSON.stringify(res.body)).not.toContain('sk-live-1234567890');
    });

    it("another user's task -> 404 task_not_found, like an unknown id", async () => {
      const accepted = (await run('sandbox.echo-chat', { prompt: 'mine' })).body as { task_id: string };
      const other = (await m.gengate.admin.createUser({ email: 'other@example.com', credits: 10 })).api_key;
      expectError(await get(`/run/tasks/${accepted.task_id}`, other), 404, 'task_not_found', 'task_id');
      expectError(await get('/run/tasks/00000000-0000-4000-8000-000000000000'), 404, 'task_not_found', 'task_id');
      expectError(await get('/run/tasks/not-a-uuid'), 404, 'task_not_found', 'task_id');
      expect((await get(`/run/tasks/${accepted.task_id}`)).status).toBe(200);
    });
  });

  describe('protocol', () => {
    it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
      expect((await get('/models').set('X-Request-Id', 'req-42')).headers['x-request-id']).toBe('req-42');
      expect((await get('/models')).headers['x-request-id']).toMatch(UUID);
      expect((await get('/models').set('X-Request-Id', 'bad id with spaces')).headers['x-request-id']).toMatch(UUID);
      const unauthenticated = await request(app).get('/api/v1/models').set('X-Request-Id', 'req-401');
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.headers['x-request-id']).toBe('req-401');
    });

    it('an unknown path is a 404 not_found JSON body', async () => {
      expectError(await get('/no-such-endpoint'), 404, 'not_found', null);
      expectError(await get('/run'), 404, 'not_found', null);
    });

    it.each([
      ['delete', '/models', 'GET'],
      ['post', '/models/sandbox.echo-chat', 'GET'],
      ['get', '/run/sandbox.echo-chat', 'POST'],
      ['post', '/run/tasks/00000000-0000-4000-8000-000000000000', 'GET'],
      ['put', '/api-keys', 'GET, POST'],
      ['get', '/api-keys/00000000-0000-4000-8000-000000000000', 'PUT, DELETE'],
      ['get', '/billing/topup', 'POST'],
      ['patch', '/billing/alerts', 'GET, POST'],
      ['post', '/pricing', 'GET'],
    ] as const)('%s %s -> 405 with Allow: %s', async (method, path, allow) => {
      const res = await request(app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${key}`);
      expectError(res, 405, 'method_not_allowed', null);
      expect(res.headers['allow']).toBe(allow);
    });
  });
});
