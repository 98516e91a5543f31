import { AsyncLocalStorage } from 'node:async_hooks';
import { connect, type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from './json-body.js';

/**
 * A plain body (Content-Type exactly application/json, a Content-Length) is read without body-parser; the
 * same bytes sent with a quoted charset go through body-parser. Both must answer the same body or error.
 */
describe('jsonBody: plain bodies read directly, as body-parser reads them', () => {
  let server: Server;
  let url = '';
  const errors: string[] = [];
  let onError: () => void = () => undefined;
  const scope = new AsyncLocalStorage<string>();

  beforeAll(async () => {
    const app = express();
    app.post('/echo', jsonBody(1024), (req, res) => void res.json({ body: req.body as unknown }));
    app.post('/scope', (_req, _res, next) => scope.run('the request', next), jsonBody(1024), (_req, res) => void res.json({ store: scope.getStore() ?? null }));
    const report: ErrorRequestHandler = (err: { message?: string; type?: string }, _req, res, _next) => {
      errors.push(err.type ?? 'other');
      onError();
      res.status(400).json({ error: err.type ?? 'other', message: err.message });
    };
    app.use(report);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const send = async (contentType: string, bytes: Buffer): Promise<{ status: number; json: unknown }> => {
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': contentType }, body: bytes });
    return { status: res.status, json: await res.json() };
  };

  const cases: [string, Buffer][] = [
    ['an object', Buffer.from('{"prompt":"hello","llm_params":{"max_tokens":8}}')],
    ['a byte order mark first', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])],
    ['a byte order mark alone', Buffer.from([0xef, 0xbb, 0xbf])],
    ['malformed UTF-8 in a string', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d])],
    ['a scalar', Buffer.from('  3 ')],
    ['null', Buffer.from('null')],
    ['whitespace only', Buffer.from('   ')],
    ['invalid JSON', Buffer.from('{"a":')],
    ['an escaped NUL', Buffer.from('{"a":["x","\\u0000"]}')],
    ['a lone surrogate escape', Buffer.from('{"a":{"b":"\\ud800"}}')],
    ['a NUL in a key', Buffer.from('{"\\u0000k":1}')],
    ['a paired surrogate escape', Buffer.from('{"a":"\\ud83d\\ude00 \\u00e9"}')],
    ['an escaped backslash before u0000', Buffer.from('{"a":"\\\\u0000"}')],
    ['text beyond the BMP', Buffer.from('{"a":"日本 😀"}')],
  ];

  it.each(cases)('%s', async (_name, bytes) => {
    const plain = await send('application/json', bytes);
    const general = await send('application/json; charset="utf-8"', bytes);
    expect(plain).toEqual(general);
  });

  it('hands the body on in the request\'s async context (its logger scope, its trace)', async () => {
    const res = await fetch(url.replace('/echo', '/scope'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });
    expect(await res.json()).toEqual({ store: 'the request' });
  });

  it('refuses the same bad text with the same answer on both paths', async () => {
    const plain = await send('Application/JSON; charset=UTF-8', Buffer.from('{"a":"\\ud800"}'));
    expect(plain.status).toBe(400);
    expect(plain.json).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/^a:/) as unknown });
  });

  it('sends a body over the limit through body-parser: payload_too_large', async () => {
    const big = await send('application/json', Buffer.from(JSON.stringify({ a: 'x'.repeat(2000) })));
    expect(big.status).toBe(400);
    expect(big.json).toMatchObject({ error: 'payload_too_large' });
  });

  it('answers a plain body cut off by its client with invalid_body, once', async () => {
    const before = errors.length;
    const { port } = server.address() as AddressInfo;
    const reported = new Promise<void>((resolve) => (onError = resolve));
    // The app's listener has run (and the body reader listens) once the server emits 'request' to this one.
    const handling = new Promise((resolve) => server.once('request', resolve));
    const socket = connect(port, '127.0.0.1');
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    await handling;
    socket.destroy();
    await reported;
    expect(errors.slice(before)).toEqual(['invalid_body']);
  });
});
