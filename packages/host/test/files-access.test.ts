import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, createMemoryStores, MemoryBlobStore } from '@gengate/core';
import express from 'express';
import { pino } from 'pino';
import request from './support/contract-request.js';
import { describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';
import { createResultUrlResolver, createResultUrlVerifier } from '../src/storage/result-urls.js';
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

describe('expiring result URLs (RESULT_URL_TTL_SECONDS)', () => {
  it('signs result URLs with an expiry; a wrong or missing signature is 403, a past expiry 410; logs never hold the task id', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const signing = { secret: randomBytes(32), ttlSeconds: 600, now: () => now };
    const { scope, uow } = createMemoryStores();
    const blobs = new MemoryBlobStore();
    const gengate = createGengate({
      adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 20 } })],
      stores: scope,
      unitOfWork: uow,
      blobStore: blobs,
      resultUrls: createResultUrlResolver(() => 'http://gengate.test', signing),
      paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
    });
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const app = express().use(
      '/api/v1',
      createGengateRouter({ gengate, blobStore: blobs, logger: pino({ level: 'info' }, sink), resultUrlVerifier: createResultUrlVerifier(signing) }),
    );
    const { api_key: key } = await gengate.admin.createUser({ email: 'ttl@example.com', credits: 100 });
    const auth = { Authorization: `Bearer ${key}` };
    const { task_id: taskId } = (await request(app).post('/api/v1/run/sandbox.echo-chat').set(auth).send({ prompt: 'hi' })).body as { task_id: string };
    await gengate.executeTask.runGeneration(taskId, new AbortController().signal);
    const task = (await request(app).get(`/api/v1/run/tasks/${taskId}`).set(auth)).body as { result_urls: string[] };
    const url = new URL(task.result_urls[0] ?? '');
    expect(url.searchParams.get('expires')).toBe(String(now / 1000 + 600));
    expect(url.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const ok = await request(app).get(`${url.pathname}${url.search}`);
    expect(ok.status).toBe(200);
    expect(ok.text).toMatch(/hi/i);
    expect(ok.headers['cache-control']).toMatch(/^private, max-age=\d+$/);

    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(now / 1000 + 6_000));
    expect((await request(app).get(`${tampered.pathname}${tampered.search}`)).body.error.type).toBe('result_url_invalid');
    const unsigned = await request(app).get(url.pathname);
    expect(unsigned.status).toBe(403);
    expect(unsigned.body.error.type).toBe('result_url_invalid');

    now += 601_000;
    const expired = await request(app).get(`${url.pathname}${url.search}`);
    expect(expired.status).toBe(410);
    expect(expired.body.error.type).toBe('result_url_expired');
    // A fresh poll hands out a fresh URL.
    const fresh = new URL(((await request(app).get(`/api/v1/run/tasks/${taskId}`).set(auth)).body as { result_urls: string[] }).result_urls[0] ?? '');
    expect((await request(app).get(`${fresh.pathname}${fresh.search}`)).status).toBe(200);

    // The two downloads that succeeded have access-log lines of their own; the refusals (403, 410) are
    // summarized per type (docs/deployment.md, "The request log"), and no line anywhere holds a signature.
    const fileLines = lines.filter((l) => l.includes('/files/'));
    expect(fileLines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l).not.toContain(url.searchParams.get('signature') ?? 'none');
    for (const l of fileLines) {
      expect(l).not.toContain(taskId);
      expect(l).not.toContain(url.searchParams.get('signature') ?? 'none');
      expect(l).toMatch(/\/files\/\[redacted\]\/output-0-[0-9a-f]{12}\.txt/);
    }
  });
});
