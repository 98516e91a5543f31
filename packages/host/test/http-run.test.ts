import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { BASE_URL, createMemoryApp, type MemoryApp } from './support/memory-app.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('HTTP: runs and tasks', () => {
  let m: MemoryApp;
  let key: string;
  const auth = () => ({ Authorization: `Bearer ${key}` });

  beforeEach(async () => {
    m = createMemoryApp();
    key = (await m.user()).key;
  });

  it('accepts a run with exactly code, message, task_id, status=waiting', async () => {
    const res = await request(m.app).post('/api/v1/run/sandbox.echo-chat').set(auth()).send({ prompt: 'hi', llm_params: { temperature: 0.5, top_p: 0.9, max_tokens: 8 } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'status', 'task_id']);
    expect(res.body).toMatchObject({ code: 200, status: 'waiting' });
    expect(typeof res.body.message).toBe('string');
    expect(res.body.task_id).toMatch(/^[0-9a-f-]{36}$/);
    const task = await request(m.app).get(`/api/v1/run/tasks/${res.body.task_id}`).set(auth());
    expect(Object.keys(task.body).sort()).toEqual(['created_at', 'error_message', 'result_urls', 'status', 'task_id']);
    expect(task.body).toMatchObject({ task_id: res.body.task_id, status: 'waiting', result_urls: [], error_message: null });
    expect(task.body.created_at).toMatch(ISO);
  });

  it.each([
    ['sandbox.echo-chat', { prompt: 'Say hello' }, 'text/plain', (b: Buffer) => b.toString().startsWith('Sandbox reply to: Say hello')],
    ['sandbox.pixel-image', { prompt: 'fox', image_params: { width: 64, height: 32, seed: 1 } }, 'image/png', (b: Buffer) => b.subarray(1, 4).toString() === 'PNG'],
    ['sandbox.motion-video', { prompt: 'boat', video_params: { duration: 5 } }, 'image/gif', (b: Buffer) => b.subarray(0, 6).toString() === 'GIF89a'],
  ])('runs %s to success with a downloadable %s result', async (model, body, type, magic) => {
    const { body: accepted } = await request(m.app).post(`/api/v1/run/${model}`).set(auth()).send(body);
    await m.drainJobs();
    const { body: task } = await request(m.app).get(`/api/v1/run/tasks/${accepted.task_id}`).set(auth());
    expect(task.status).toBe('success');
    expect(task.error_message).toBeNull();
    expect(task.result_urls).toHaveLength(1);
    const path = String(task.result_urls[0]).replace(BASE_URL, '');
    const file = await request(m.app).get(path).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toContain(type);
    expect(magic(file.body as Buffer)).toBe(true);
    const tx = await request(m.app).get('/api/v1/billing/transactions').set(auth());
    const usage = tx.body.data.filter((t: { payment_method: string }) => t.payment_method === 'usage');
    expect(usage).toHaveLength(1);
    expect(usage[0].credits).toBeLessThan(0);
    expect(usage[0].amount).toBeGreaterThanOrEqual(0);
    expect(usage[0].status).toBe('completed');
  });

  it('ends a failing task in fail with a message, no result and no charge', async () => {
    const before = (await request(m.app).get('/api/v1/billing/balance').set(auth())).body;
    const { body: accepted } = await request(m.app).post('/api/v1/run/sandbox.always-fail').set(auth()).send({});
    await m.drainJobs();
    const { body: task } = await request(m.app).get(`/api/v1/run/tasks/${accepted.task_id}`).set(auth());
    expect(task.status).toBe('fail');
    expect(task.error_message.length).toBeGreaterThan(0);
    expect(task.result_urls).toEqual([]);
    const after = (await request(m.app).get('/api/v1/billing/balance').set(auth())).body;
    expect(after).toEqual(before);
    expect(m.db.transactions.filter((t) => t.paymentMethod === 'usage')).toHaveLength(0);
  });

  it('honours the Idempotency-Key header: replay, 409 for another body, 400 for a malformed key', async () => {
    const post = (body: object, key: string) => request(m.app).post('/api/v1/run/sandbox.echo-chat').set(auth()).set('Idempotency-Key', key).send(body);
    const first = await post({ prompt: 'once' }, 'abc-1');
    const again = await post({ prompt: 'once' }, 'abc-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(m.db.tasks.size).toBe(1);
    const other = await post({ prompt: 'twice' }, 'abc-1');
    expect(other.status).toBe(409);
    expect(other.body.error).toEqual({ type: 'conflict', param: 'Idempotency-Key' });
    expect((await post({ prompt: 'x' }, 'has space')).status).toBe(400);
    expect(m.db.tasks.size).toBe(1);
  });

  it("answers 404 for another user's task and for an unknown id", async () => {
    const { body: accepted } = await request(m.app).post('/api/v1/run/sandbox.echo-chat').set(auth()).send({ prompt: 'mine' });
    const other = await m.user();
    const res = await request(m.app).get(`/api/v1/run/tasks/${accepted.task_id}`).set({ Authorization: `Bearer ${other.key}` });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: expect.any(String), error: { type: 'task_not_found', param: 'task_id' } });
    expect((await request(m.app).get('/api/v1/run/tasks/not-a-uuid').set(auth())).status).toBe(404);
  });
});
