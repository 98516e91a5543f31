import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createMemoryApp } from './support/memory-app.js';

/** Result files belong to successful tasks only: /files serves nothing of a task that did not succeed. */
describe('GET /files: only the files of successful tasks', () => {
  it('serves a successful task’s file, and nothing of a waiting task or of a failed task (whose files it deletes)', async () => {
    const m = createMemoryApp();
    const { key } = await m.user(100);
    const auth = { Authorization: `Bearer ${key}` };

    const ok = (await request(m.app).post('/api/v1/run/sandbox.pixel-image').set(auth).send({ prompt: 'kept' })).body as { task_id: string };
    await m.drainJobs();
    const done = (await request(m.app).get(`/api/v1/run/tasks/${ok.task_id}`).set(auth)).body as { status: string; result_urls: string[] };
    expect(done.status).toBe('success');
    const path = new URL(done.result_urls[0] ?? '').pathname;
    expect((await request(m.app).get(path)).status).toBe(200);

    // A cancelled task whose worker stored its file afterwards (the worker finished the upstream call).
    const cancelled = (await request(m.app).post('/api/v1/run/sandbox.pixel-image').set(auth).send({ prompt: 'cancel me' })).body as { task_id: string };
    expect((await request(m.app).post(`/api/v1/run/tasks/${cancelled.task_id}/cancel`).set(auth)).status).toBe(200);
    const late = `${cancelled.task_id}/output-0.png`;
    await m.blobs.put(late, new Uint8Array([137, 80, 78, 71]), 'image/png');
    const refused = await request(m.app).get(`/api/v1/files/${late}`);
    expect(refused.status).toBe(404);
    expect(refused.body.error.type).toBe('not_found');
    expect(await m.blobs.get(late)).toBeNull();

    // A task still waiting: its (premature) file is not served, and not deleted either.
    const waiting = (await request(m.app).post('/api/v1/run/sandbox.pixel-image').set(auth).send({ prompt: 'not yet' })).body as { task_id: string };
    const early = `${waiting.task_id}/output-0.png`;
    await m.blobs.put(early, new Uint8Array([1]), 'image/png');
    expect((await request(m.app).get(`/api/v1/files/${early}`)).status).toBe(404);
    expect(await m.blobs.get(early)).not.toBeNull();

    // A successful task's URL with a file name it does not list.
    expect((await request(m.app).get(`/api/v1/files/${ok.task_id}/output-7.png`)).status).toBe(404);
  });
});
