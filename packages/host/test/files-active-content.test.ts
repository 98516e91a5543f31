import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, createMemoryStores, type AdapterCall, type BlobStore, type GenerationResult } from '@gengate/core/internal';
import express, { type Express } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';
import type { FileDeliveryOptions } from '../src/http/routes/files-delivery.js';
import { LocalBlobStore } from '../src/storage/local-blob-store.js';
import { createResultUrlResolver } from '../src/storage/result-urls.js';
import { S3BlobStore } from '../src/storage/s3-blob-store.js';
import request from './support/contract-request.js';
import { startS3Server, type TestS3Server } from './support/s3-server.js';

/**
 * Result files are user-influenced content on the API's (and the dashboard's) origin: a result an
 * adapter returns as SVG or HTML must never run there. Every file is served with nosniff and a
 * sandboxing CSP; only raster images, video, audio and plain text are inline, the rest attachments.
 */
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>';
const HTML = '<html><body><script>alert(document.domain)</script></body></html>';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 4]);

/** The sandbox, except that its image and chat models return what the test sets. */
class ActiveContentAdapter extends SandboxAdapter {
  next: { data: Uint8Array; mediaType: string } = { data: PNG, mediaType: 'image/png' };
  override async generate(_call: AdapterCall): Promise<GenerationResult> {
    return { files: [{ kind: 'bytes', data: this.next.data, mediaType: this.next.mediaType }] };
  }
}

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

interface Served {
  readonly app: Express;
  /** Runs a task whose one result is these bytes; returns its file's path. */
  readonly resultOf: (model: string, data: string | Uint8Array, mediaType: string) => Promise<string>;
}

async function serve(blobs: BlobStore, delivery?: FileDeliveryOptions): Promise<Served> {
  const adapter = new ActiveContentAdapter({ latencyMs: { chat: 1, image: 1, video: 1 } });
  const { scope, uow } = createMemoryStores();
  const gengate = createGengate({
    adapters: [adapter],
    stores: scope,
    unitOfWork: uow,
    blobStore: blobs,
    resultUrls: createResultUrlResolver(() => 'http://gengate.test'),
    paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
    // These small files are about the blob store's objects (inline ones: inline-results.test.ts).
    execution: { inlineResultMaxBytes: 0 },
  });
  const app = express().use(
    '/api/v1',
    createGengateRouter({ gengate, blobStore: blobs, logger: pino({ level: 'silent' }), ...(delivery ? { fileDelivery: delivery } : {}) }),
  );
  const { api_key: key } = await gengate.admin.createUser({ email: `active-${randomBytes(4).toString('hex')}@example.com`, credits: 1_000 });
  const auth = { Authorization: `Bearer ${key}` };
  return {
    app,
    async resultOf(model, data, mediaType) {
      adapter.next = { data: typeof data === 'string' ? new TextEncoder().encode(data) : data, mediaType };
      const { task_id: id } = (await request(app).post(`/api/v1/run/${model}`).set(auth).send({ prompt: 'x' }).expect(200)).body as { task_id: string };
      await gengate.executeTask.runGeneration(id, new AbortController().signal);
      const task = (await request(app).get(`/api/v1/run/tasks/${id}`).set(auth).expect(200)).body as { status: string; result_urls: string[] };
      expect(task.status).toBe('success');
      const url = new URL(task.result_urls[0] ?? '');
      return `${url.pathname}${url.search}`;
    },
  };
}

const CASES = [
  { what: 'SVG', model: 'sandbox.pixel-image', data: SVG, type: 'image/svg+xml', inline: false },
  { what: 'HTML', model: 'sandbox.echo-chat', data: HTML, type: 'text/html', inline: false },
  { what: 'PNG', model: 'sandbox.pixel-image', data: PNG, type: 'image/png', inline: true },
  { what: 'plain text', model: 'sandbox.echo-chat', data: 'hello', type: 'text/plain', inline: true },
] as const;

const stores: [string, () => BlobStore][] = [
  ['local', () => new LocalBlobStore(mkdtempSync(join(tmpdir(), 'gg-active-')))],
  ['s3', () => new S3BlobStore(s3.settings(`active-${randomBytes(4).toString('hex')}`))],
];

describe.each(stores)('result files streamed from the %s store', (_name, make) => {
  it.each(CASES)('$what: nosniff, a sandboxing CSP, and inline only for passive media', async (c) => {
    const s = await serve(make());
    const res = await request(s.app).get(await s.resultOf(c.model, c.data, c.type)).expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(res.headers['content-disposition']).toMatch(c.inline ? /^inline; filename="output-0\.[a-z0-9]+"$/ : /^attachment; filename="output-0\.[a-z0-9]+"$/);
    if (!c.inline) expect(res.headers['content-type']).not.toMatch(/^(image\/png|text\/plain)/);
  });
});

describe('result files through FILES_DELIVERY=redirect (S3)', () => {
  it.each(CASES)('$what: the presigned URL and the stored object carry the disposition', async (c) => {
    const prefix = `active-redirect-${randomBytes(4).toString('hex')}`;
    const blobs = new S3BlobStore(s3.settings(prefix));
    const s = await serve(blobs, { mode: 'redirect', presignTtlSeconds: 60 });
    const path = await s.resultOf(c.model, c.data, c.type);
    const moved = await request(s.app).get(path).expect(302);
    const location = new URL(moved.headers['location'] ?? '');
    const disposition = c.inline ? /^inline; filename="output-0\.[a-z0-9]+"$/ : /^attachment; filename="output-0\.[a-z0-9]+"$/;
    expect(location.searchParams.get('response-content-disposition')).toMatch(disposition);
    expect(location.searchParams.get('response-content-type')).toMatch(new RegExp(`^${c.type.replace('+', '\\+')}`));
    // The bucket answers the presigned URL with those headers.
    const fetched = await fetch(location);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-disposition')).toMatch(disposition);
    // And the object itself is stored with safe metadata, for whoever reads it from the bucket directly.
    const key = `${path.split('?')[0]?.replace('/api/v1/files/', '') ?? ''}`;
    const head = await blobs.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `${prefix}/${key}` }));
    expect(head.ContentDisposition).toMatch(disposition);
  });
});
