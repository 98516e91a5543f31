import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryApp, type MemoryApp } from './support/memory-app.js';

/** Bad input: the JSON error body, the right status, and nothing created (no task, no hold, no transaction). */
describe('HTTP: bad input changes nothing', () => {
  let m: MemoryApp;
  let key: string;

  beforeEach(async () => {
    m = createMemoryApp();
    key = (await m.user()).key;
  });

  function snapshot() {
    return { tasks: m.db.tasks.size, transactions: m.db.transactions.length, holds: m.db.holds.size, jobs: m.db.jobs.length };
  }

  async function refused(model: string, body: unknown, status: number, type: string, param?: string | null, raw?: { type: string; text: string }) {
    const before = snapshot();
    let req = request(m.app).post(`/api/v1/run/${model}`).set('Authorization', `Bearer ${key}`);
    req = raw ? req.set('Content-Type', raw.type).send(raw.text) : req.send(body as object);
    const res = await req;
    expect(res.status).toBe(status);
    expect(Object.keys(res.body).sort()).toEqual(['code', 'error', 'message']);
    expect(res.body.code).toBe(status);
    expect(res.body.error.type).toBe(type);
    if (param !== undefined) expect(res.body.error.param).toBe(param);
    expect(res.body.message.length).toBeGreaterThan(0);
    expect(snapshot()).toEqual(before);
  }

  it.each([
    ['temperature 2.5', 'sandbox.echo-chat', { prompt: 'x', llm_params: { temperature: 2.5 } }, 'invalid_request', 'llm_params.temperature'],
    ['temperature -0.5', 'sandbox.echo-chat', { prompt: 'x', llm_params: { temperature: -0.5 } }, 'invalid_request', 'llm_params.temperature'],
    ['top_p 1.5', 'sandbox.echo-chat', { prompt: 'x', llm_params: { top_p: 1.5 } }, 'invalid_request', 'llm_params.top_p'],
    ['top_p -0.1', 'sandbox.echo-chat', { prompt: 'x', llm_params: { top_p: -0.1 } }, 'invalid_request', 'llm_params.top_p'],
    ['duration 7', 'sandbox.motion-video', { prompt: 'x', video_params: { duration: 7 } }, 'unsupported_parameter', 'video_params.duration'],
    ['aspect ratio 21:9', 'sandbox.motion-video', { prompt: 'x', video_params: { aspect_ratio: '21:9' } }, 'invalid_request', 'video_params.aspect_ratio'],
    ['resolution 4k', 'sandbox.motion-video', { prompt: 'x', video_params: { resolution: '4k' } }, 'invalid_request', 'video_params.resolution'],
    ['image aspect ratio 2:1', 'sandbox.pixel-image', { prompt: 'x', image_params: { aspect_ratio: '2:1' } }, 'invalid_request', 'image_params.aspect_ratio'],
    ['unknown root field', 'sandbox.echo-chat', { prompt: 'x', colour: 'red' }, 'invalid_request', 'colour'],
    ['video params to a chat model', 'sandbox.echo-chat', { prompt: 'x', video_params: { duration: 5 } }, 'unsupported_parameter', 'video_params'],
    ['missing prompt', 'sandbox.echo-chat', {}, 'invalid_request', 'prompt'],
    ['prompt of the wrong type', 'sandbox.echo-chat', { prompt: 42 }, 'invalid_request', 'prompt'],
    ['non-http callback', 'sandbox.echo-chat', { prompt: 'x', callback_url: 'file:///etc/passwd' }, 'invalid_request', 'callback_url'],
  ])('%s -> 400', async (_label, model, body, type, param) => {
    await refused(model, body, 400, type, param);
  });

  it('a non-JSON body -> 400 invalid_json; a text/plain body -> 415', async () => {
    await refused('sandbox.echo-chat', null, 400, 'invalid_json', null, { type: 'application/json', text: '{"prompt": "x",' });
    await refused('sandbox.echo-chat', null, 415, 'unsupported_media_type', null, { type: 'text/plain', text: 'prompt=x' });
  });

  it('an unknown model -> 404 model_not_found', async () => {
    await refused('sandbox.nope', { prompt: 'x' }, 404, 'model_not_found', 'model_id');
  });

  it('a balance that cannot cover the quote -> 402 insufficient_credits', async () => {
    key = (await m.user(0)).key;
    await refused('sandbox.pixel-image', { prompt: 'x' }, 402, 'insufficient_credits', null);
  });

  it.each([
    ['missing', undefined],
    ['malformed', 'Token abc'],
    ['unknown', `Bearer gg_live_${'A'.repeat(43)}`],
    ['not a gengate key', 'Bearer sk-1234'],
  ])('a %s key -> 401 authentication_failed', async (_label, header) => {
    const before = snapshot();
    let req = request(m.app).post('/api/v1/run/sandbox.echo-chat');
    if (header) req = req.set('Authorization', header);
    const res = await req.send({ prompt: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.error.type).toBe('authentication_failed');
    expect(JSON.stringify(res.body)).not.toContain('sk-1234');
    expect(snapshot()).toEqual(before);
  });

  it('unknown paths are 404 JSON, wrong methods 405 with Allow, and the request id is echoed', async () => {
    const nf = await request(m.app).get('/api/v1/nope').set('Authorization', `Bearer ${key}`);
    expect(nf.status).toBe(404);
    expect(nf.body.error.type).toBe('not_found');
    const wm = await request(m.app).delete('/api/v1/billing/balance').set('Authorization', `Bearer ${key}`);
    expect(wm.status).toBe(405);
    expect(wm.headers['allow']).toBe('GET');
    const id = await request(m.app).get('/api/v1/models').set('Authorization', `Bearer ${key}`).set('X-Request-Id', 'abc-123');
    expect(id.headers['x-request-id']).toBe('abc-123');
  });
});
