import request from './support/contract-request.js';
import { describe, expect, it } from 'vitest';
import { createMemoryApp } from './support/memory-app.js';

describe('GET /api/v1/run/tasks (extension)', () => {
  it('lists only the caller\'s tasks, newest first, with model, modality, cost and results; paged and filtered', async () => {
    const h = createMemoryApp();
    const u = await h.user(100);
    const other = await h.user(100);
    const auth = { Authorization: `Bearer ${u.key}` };
    const submit = async (model: string, body: object) => (await request(h.app).post(`/api/v1/run/${model}`).set(auth).send(body).expect(200)).body.task_id as string;
    const image = await submit('sandbox.pixel-image', { prompt: 'a red square', image_params: { width: 64, height: 32 } });
    await new Promise((r) => setTimeout(r, 2));
    const chat = await submit('sandbox.echo-chat', { prompt: 'hello' });
    await new Promise((r) => setTimeout(r, 2));
    const failing = await submit('sandbox.always-fail', { prompt: 'x' });
    await request(h.app).post('/api/v1/run/sandbox.pixel-image').set('Authorization', `Bearer ${other.key}`).send({ prompt: 'not yours' }).expect(200);

    const waiting = await request(h.app).get('/api/v1/run/tasks').set(auth).expect(200);
    expect(waiting.body).toMatchObject({ total: 3, page: 1, per_page: 20 });
    expect(waiting.body.data.map((t: { task_id: string }) => t.task_id)).toEqual([failing, chat, image]);
    expect(waiting.body.data[2]).toMatchObject({
      task_id: image,
      status: 'waiting',
      result_urls: [],
      error_message: null,
      model_id: 'sandbox.pixel-image',
      modality: 'image',
      prompt: 'a red square',
      quoted_credits: 2,
      held_credits: 2,
      charged_credits: null,
      callback_url: null,
      submitted_with_api_key: true,
      started_at: null,
      finished_at: null,
    });

    await h.drainJobs();
    const done = await request(h.app).get('/api/v1/run/tasks').set(auth).expect(200);
    const byId = new Map(done.body.data.map((t: { task_id: string }) => [t.task_id, t]));
    expect(byId.get(image)).toMatchObject({ status: 'success', held_credits: 0, charged_credits: 2, result_urls: [expect.stringMatching(/\/output-0-[0-9a-f]{12}\.png$/)] });
    expect(byId.get(failing)).toMatchObject({ status: 'fail', charged_credits: null, held_credits: 0, error_message: expect.any(String) });
    expect((byId.get(chat) as { finished_at: string }).finished_at).toEqual(expect.any(String));

    const q = async (query: string) => (await request(h.app).get(`/api/v1/run/tasks?${query}`).set(auth).expect(200)).body;
    expect((await q('status=fail')).data.map((t: { task_id: string }) => t.task_id)).toEqual([failing]);
    expect((await q('status=fail&status=success')).total).toBe(3);
    expect((await q('modality=chat')).data.map((t: { task_id: string }) => t.task_id)).toEqual([chat]);
    expect((await q('model=sandbox.pixel-image&model=sandbox.always-fail')).total).toBe(2);
    expect(await q('per_page=2&page=2')).toMatchObject({ total: 3, page: 2, per_page: 2, data: [expect.objectContaining({ task_id: image })] });

    const bad = await request(h.app).get('/api/v1/run/tasks?status=done').set(auth).expect(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request', param: 'status' });
    await request(h.app).get('/api/v1/run/tasks?per_page=101').set(auth).expect(400);
    await request(h.app).post('/api/v1/run/tasks').set(auth).send({}).expect(405);
    await request(h.app).get('/api/v1/run/tasks').expect(401);
  });
});

describe('POST /api/v1/models/{model_id}/quote (extension)', () => {
  it('quotes a body validated exactly like a run, holding nothing and creating nothing', async () => {
    const h = createMemoryApp();
    const u = await h.user(1);
    const auth = { Authorization: `Bearer ${u.key}` };
    const quote = await request(h.app)
      .post('/api/v1/models/sandbox.motion-video/quote')
      .set(auth)
      .send({ prompt: 'a boat', video_params: { duration: 10, resolution: '1080p' } })
      .expect(200);
    expect(quote.body).toEqual({ model_id: 'sandbox.motion-video', credits: 80, usd: 0.8, currency: 'USD', available_credits: 1, sufficient: false });
    // The same body as a run is refused for the credits only.
    const run = await request(h.app).post('/api/v1/run/sandbox.motion-video').set(auth).send({ prompt: 'a boat', video_params: { duration: 10, resolution: '1080p' } });
    expect(run.body.error.type).toBe('insufficient_credits');

    for (const body of [{ prompt: 'x', video_params: { duration: 7 } }, { prompt: 'x', image_params: {} }, { prompt: 'x', video_params: { aspect_ratio: 'wide' } }, {}]) {
      const q = await request(h.app).post('/api/v1/models/sandbox.motion-video/quote').set(auth).send(body);
      const r = await request(h.app).post('/api/v1/run/sandbox.motion-video').set(auth).send(body);
      expect(q.status).toBe(400);
      expect(q.body).toEqual(r.body);
    }
    await request(h.app).post('/api/v1/models/nope.model/quote').set(auth).send({ prompt: 'x' }).expect(404);
    const chat = await request(h.app).post('/api/v1/models/sandbox.echo-chat/quote').set(auth).send({ prompt: 'hi', llm_params: { max_tokens: 100 } }).expect(200);
    expect(chat.body.sufficient).toBe(true);
    expect(h.db.tasks.size).toBe(0);
    expect(h.db.holds.size).toBe(0);
    expect(h.db.jobs.length).toBe(0);
  });
});
