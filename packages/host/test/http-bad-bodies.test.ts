import { Writable } from 'node:stream';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { SandboxAdapter } from '@gengate/adapters';
import { createMemoryGengate, type MemoryGengate } from '@gengate/testing';
import express, { type Express } from 'express';
import { pino } from 'pino';
import request from 'supertest';
import Stripe from 'stripe';
import { beforeEach, describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';

/** Every bad body is the client's mistake: a 4xx with a JSON error, never a 5xx, never an error-level log line. */
describe('bad bodies are 4xx', () => {
  let m: MemoryGengate;
  let app: Express;
  let key: string;
  let lines: { level: number; msg?: string }[];

  beforeEach(async () => {
    lines = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as { level: number });
        cb();
      },
    });
    m = createMemoryGengate({ adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 50 } })] });
    const stripe = new Stripe('sk_test_fuzz');
    app = express().use(
      '/api/v1',
      createGengateRouter({ gengate: m.gengate, blobStore: m.blobs, logger: pino({ level: 'info' }, sink), stripeWebhook: { stripe, webhookSecret: 'whsec_fuzz' } }),
    );
    key = (await m.gengate.admin.createUser({ email: 'bodies@example.com', credits: 100 })).api_key;
  });

  /** supertest would re-serialise a Buffer sent as application/json: send the exact bytes. */
  const raw = (path: string, headers: Record<string, string>, body: Buffer | string) =>
    request(app)
      .post(`/api/v1${path}`)
      .set(headers)
      .serialize((b: unknown) => b as string)
      .send(body as string);
  const post = (path: string, headers: Record<string, string>, body: Buffer | string) => raw(path, { Authorization: `Bearer ${key}`, ...headers }, body);
  const json = JSON.stringify({ prompt: 'hello' });

  function expectClientError(res: request.Response, status: number, type: string, messagePart?: RegExp): void {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.code).toBe(status);
    expect(res.body.error.type).toBe(type);
    if (messagePart) expect(res.body.message).toMatch(messagePart);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(m.db.tasks.size).toBe(0);
  }

  it.each([
    ['gzip with invalid data', { 'Content-Encoding': 'gzip' }, Buffer.from('definitely not gzip'), 400, 'invalid_body', /gzip/],
    ['deflate with invalid data', { 'Content-Encoding': 'deflate' }, Buffer.from('not deflate either'), 400, 'invalid_body', /deflate/],
    ['br with invalid data', { 'Content-Encoding': 'br' }, Buffer.from([0xff, 0xfe, 0xfd, 0x00, 0x13]), 400, 'invalid_body', /br/],
    ['a truncated gzip body', { 'Content-Encoding': 'gzip' }, gzipSync(json).subarray(0, 12), 400, 'invalid_body', /gzip/],
    ['Content-Encoding: identity, foo', { 'Content-Encoding': 'identity, foo' }, Buffer.from(json), 415, 'unsupported_media_type', /identity, foo/],
    ['Content-Encoding: compress', { 'Content-Encoding': 'compress' }, Buffer.from(json), 415, 'unsupported_media_type', /compress/],
    ['charset=latin1', { 'Content-Type': 'application/json; charset=latin1' }, Buffer.from(json), 415, 'unsupported_media_type', /latin1/i],
    ['charset=utf-7', { 'Content-Type': 'application/json; charset=utf-7' }, Buffer.from(json), 415, 'unsupported_media_type', /utf-7/i],
    ['charset=utf-nonsense', { 'Content-Type': 'application/json; charset=utf-nonsense' }, Buffer.from(json), 415, 'unsupported_media_type', /utf-nonsense/i],
    ['gzipped malformed JSON', { 'Content-Encoding': 'gzip' }, gzipSync('{"prompt":'), 400, 'invalid_json', undefined],
  ] as const)('%s', async (_label, headers, body, status, type, message) => {
    const res = await post('/run/sandbox.echo-chat', { 'Content-Type': 'application/json', ...headers }, body);
    expectClientError(res, status, type, message);
  });

  it('still accepts a valid gzip or br body', async () => {
    expect((await post('/run/sandbox.echo-chat', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, gzipSync(json))).status).toBe(200);
    expect((await post('/run/sandbox.echo-chat', { 'Content-Type': 'application/json', 'Content-Encoding': 'br' }, brotliCompressSync(json))).status).toBe(200);
  });

  it('refuses a corrupt or oddly encoded body on the Stripe webhook with a 4xx too', async () => {
    const hook = (headers: Record<string, string>, body: Buffer) => raw('/billing/stripe/webhook', { 'Stripe-Signature': 't=1,v1=00', ...headers }, body);
    expectClientError(await hook({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, Buffer.from('nope')), 400, 'invalid_body');
    expectClientError(await hook({ 'Content-Type': 'application/json', 'Content-Encoding': 'identity, foo' }, Buffer.from('{}')), 415, 'unsupported_media_type');
  });

  it('a malformed percent-encoding in the path is a 400, not a 500', async () => {
    const res = await request(app).get('/api/v1/run/tasks/%E0%A4%A').set('Authorization', `Bearer ${key}`);
    expect(res.status).toBeLessThan(500);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});
