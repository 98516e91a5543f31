import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, createMemoryStores, type BlobStore } from '@gengate/core';
import express, { type Express } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';
import type { FileDeliveryOptions } from '../src/http/routes/files-delivery.js';
import { LocalBlobStore } from '../src/storage/local-blob-store.js';
import { createResultUrlResolver, createResultUrlVerifier, type ResultUrlSigning } from '../src/storage/result-urls.js';
import { S3BlobStore } from '../src/storage/s3-blob-store.js';
import request from './support/contract-request.js';
import { startS3Server, type TestS3Server } from './support/s3-server.js';

const SIZE = 300_000;
const CONTENT = Buffer.from(Array.from({ length: SIZE }, (_, i) => (i * 7) % 256));

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

interface Served {
  readonly app: Express;
  readonly blobs: BlobStore;
  /** A successful video task's file path (with its query when signed); its bytes are CONTENT. */
  readonly path: string;
  readonly taskId: string;
  readonly auth: { Authorization: string };
  readonly runTask: (model: string, body: object) => Promise<string>;
}

async function serve(blobs: BlobStore, opts: { delivery?: FileDeliveryOptions; signing?: ResultUrlSigning; inlineResultMaxBytes?: number } = {}): Promise<Served> {
  const { scope, uow } = createMemoryStores();
  const gengate = createGengate({
    adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 1 }, statusPollIntervalMs: 1 })],
    stores: scope,
    unitOfWork: uow,
    blobStore: blobs,
    resultUrls: createResultUrlResolver(() => 'http://gengate.test', opts.signing ?? null),
    paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
    // The file is replaced in the blob store below: keep the sandbox's small image there (not with the task).
    execution: { inlineResultMaxBytes: opts.inlineResultMaxBytes ?? 0 },
  });
  const app = express().use(
    '/api/v1',
    createGengateRouter({
      gengate,
      blobStore: blobs,
      logger: pino({ level: 'silent' }),
      ...(opts.delivery ? { fileDelivery: opts.delivery } : {}),
      ...(opts.signing ? { resultUrlVerifier: createResultUrlVerifier(opts.signing) } : {}),
    }),
  );
  const { api_key: key } = await gengate.admin.createUser({ email: `range-${randomBytes(4).toString('hex')}@example.com`, credits: 1_000 });
  const auth = { Authorization: `Bearer ${key}` };
  const runTask = async (model: string, body: object): Promise<string> => {
    const { task_id: id } = (await request(app).post(`/api/v1/run/${model}`).set(auth).send(body).expect(200)).body as { task_id: string };
    await gengate.executeTask.runGeneration(id, new AbortController().signal);
    return id;
  };
  const taskId = await runTask('sandbox.pixel-image', { prompt: 'a file to range over' });
  const task = (await request(app).get(`/api/v1/run/tasks/${taskId}`).set(auth).expect(200)).body as { status: string; result_urls: string[] };
  expect(task.status).toBe('success');
  const url = new URL(task.result_urls[0] ?? '');
  // Replace the sandbox's small image by a larger file of known bytes, under the same key.
  await blobs.put(url.pathname.replace('/api/v1/files/', ''), CONTENT, 'image/png');
  return { app, blobs, path: `${url.pathname}${url.search}`, taskId, auth, runTask };
}

const stores: [string, () => BlobStore][] = [
  ['local', () => new LocalBlobStore(mkdtempSync(join(tmpdir(), 'gg-range-')))],
  ['s3', () => new S3BlobStore(s3.settings(`range-${randomBytes(4).toString('hex')}`))],
];

const binary = (res: { on: (e: string, f: (c?: Buffer) => void) => void }, cb: (err: Error | null, body: Buffer) => void) => {
  const parts: Buffer[] = [];
  res.on('data', (c?: Buffer) => c && parts.push(c));
  res.on('end', () => cb(null, Buffer.concat(parts)));
};

describe.each(stores)('GET /files with Range, streamed from the %s store', (_name, make) => {
  it('serves the whole file with Accept-Ranges, and single byte ranges as 206 with Content-Range', async () => {
    const s = await serve(make());
    const whole = await request(s.app).get(s.path).buffer(true).parse(binary).expect(200);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-length']).toBe(String(SIZE));
    expect(whole.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(whole.body as Buffer, CONTENT)).toBe(0);

    for (const [header, start, end] of [
      ['bytes=0-99', 0, 99],
      ['bytes=100000-', 100_000, SIZE - 1],
      ['bytes=-10', SIZE - 10, SIZE - 1],
      ['bytes=299990-999999', 299_990, SIZE - 1],
    ] as const) {
      const part = await request(s.app).get(s.path).set('Range', header).buffer(true).parse(binary).expect(206);
      expect(part.headers['content-range'], header).toBe(`bytes ${start}-${end}/${SIZE}`);
      expect(part.headers['content-length'], header).toBe(String(end - start + 1));
      expect(part.headers['accept-ranges']).toBe('bytes');
      expect(Buffer.compare(part.body as Buffer, CONTENT.subarray(start, end + 1)), header).toBe(0);
    }
  });

  it('answers 416 with the size for a range past the end; several ranges, a malformed header or If-Range get the whole file', async () => {
    const s = await serve(make());
    const refused = await request(s.app).get(s.path).set('Range', `bytes=${SIZE}-`).expect(416);
    expect(refused.headers['content-range']).toBe(`bytes */${SIZE}`);
    expect(refused.body.error.type).toBe('range_not_satisfiable');

    for (const headers of [{ Range: 'bytes=0-1,10-11' }, { Range: 'bytes=oops' }, { Range: 'items=0-1' }, { Range: 'bytes=0-1', 'If-Range': '"x"' }]) {
      const whole = await request(s.app).get(s.path).set(headers).buffer(true).parse(binary).expect(200);
      expect((whole.body as Buffer).length, JSON.stringify(headers)).toBe(SIZE);
    }
  });

  it('answers HEAD with the headers only (size, ranges), reading nothing', async () => {
    const s = await serve(make());
    const server = s.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const head = await fetch(`${base}${s.path}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(SIZE));
      expect(head.headers.get('accept-ranges')).toBe('bytes');
      const ranged = await fetch(`${base}${s.path}`, { method: 'HEAD', headers: { Range: 'bytes=5-9' } });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe(`bytes 5-9/${SIZE}`);
      expect((await ranged.arrayBuffer()).byteLength).toBe(0);
    } finally {
      server.close();
    }
  });

  it('checks access before reading: a failed task’s file and an unlisted name are 404 with or without Range', async () => {
    const s = await serve(make());
    const failed = await s.runTask('sandbox.always-fail', {});
    await s.blobs.put(`${failed}/output-0.png`, CONTENT, 'image/png');
    expect((await request(s.app).get(`/api/v1/files/${failed}/output-0.png`).set('Range', 'bytes=0-9')).status).toBe(404);
    expect(await s.blobs.stat(`${failed}/output-0.png`)).toBeNull();
    expect((await request(s.app).get(`/api/v1/files/${s.taskId}/output-5.png`).set('Range', 'bytes=0-9')).status).toBe(404);
  });
});

describe('FILES_DELIVERY=redirect (S3)', () => {
  it('answers 302 to a presigned URL only after the signature and task checks; the bucket serves ranges', async () => {
    let now = Date.now();
    const signing = { secret: randomBytes(32), ttlSeconds: 120, now: () => now };
    const blobs = new S3BlobStore(s3.settings('redirect'));
    const s = await serve(blobs, { delivery: { mode: 'redirect', presignTtlSeconds: 300 }, signing });

    const moved = await request(s.app).get(s.path).expect(302);
    expect(moved.headers['cache-control']).toBe('no-store');
    const location = new URL(moved.headers['location'] ?? '');
    expect(location.origin).toBe(s3.endpoint);
    // The presigned URL never outlives the result URL it was reached through (120 s here, rounded up to
    // a 2 s step: not 300).
    const resultUrlLeft = Number(new URL(s.path, 'http://x').searchParams.get('expires')) - Math.floor(now / 1000);
    expect(resultUrlLeft).toBeLessThanOrEqual(122);
    expect(Number(location.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(resultUrlLeft);
    const part = await fetch(location, { headers: { Range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(Buffer.compare(Buffer.from(await part.arrayBuffer()), CONTENT.subarray(10, 20))).toBe(0);

    // Refusals come before any redirect.
    const unsigned = await request(s.app).get(s.path.split('?')[0] ?? '').expect(403);
    expect(unsigned.headers['location']).toBeUndefined();
    const failed = await s.runTask('sandbox.always-fail', {});
    await blobs.put(`${failed}/output-0.png`, CONTENT, 'image/png');
    const signedFailed = new URL(createResultUrlResolver(() => 'http://gengate.test', signing).urlFor(`${failed}/output-0.png`));
    const notServed = await request(s.app).get(`${signedFailed.pathname}${signedFailed.search}`).expect(404);
    expect(notServed.headers['location']).toBeUndefined();
    expect(await blobs.stat(`${failed}/output-0.png`)).toBeNull();
    now += 121_000;
    expect((await request(s.app).get(s.path)).status).toBe(410);
  });

  it('serves a result kept with its task itself (there is no object to presign), ranges included', async () => {
    const blobs = new S3BlobStore(s3.settings(`inline-${randomBytes(4).toString('hex')}`));
    const s = await serve(blobs, { delivery: { mode: 'redirect', presignTtlSeconds: 300 }, inlineResultMaxBytes: 4096 });
    const id = await s.runTask('sandbox.echo-chat', { prompt: 'kept with the task' });
    const task = (await request(s.app).get(`/api/v1/run/tasks/${id}`).set(s.auth).expect(200)).body as { result_urls: string[] };
    const url = new URL(task.result_urls[0] ?? '');
    const whole = await request(s.app).get(url.pathname).buffer(true).parse(binary).expect(200);
    expect(whole.headers['location']).toBeUndefined();
    expect((whole.body as Buffer).toString()).toContain('kept with the task');
    const part = await request(s.app).get(url.pathname).set('Range', 'bytes=0-3').buffer(true).parse(binary).expect(206);
    expect((part.body as Buffer).toString()).toBe((whole.body as Buffer).subarray(0, 4).toString());
    expect(await blobs.stat(url.pathname.replace('/api/v1/files/', ''))).toBeNull();
  });

  it('streams from a store without presigned URLs even in redirect mode', async () => {
    const s = await serve(new LocalBlobStore(mkdtempSync(join(tmpdir(), 'gg-range-'))), { delivery: { mode: 'redirect', presignTtlSeconds: 60 } });
    const res = await request(s.app).get(s.path).set('Range', 'bytes=0-0').buffer(true).parse(binary).expect(206);
    expect([...(res.body as Buffer)]).toEqual([CONTENT[0]]);
  });
});
