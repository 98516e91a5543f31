import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { fetchFromNode } from './fetch-from-node.js';

/** A small Express app standing for gengate's router: each route shows one behaviour of the adapter. */
function app() {
  const closed: { finished: boolean }[] = [];
  const streams: ServerResponse[] = [];
  const a = express();
  a.disable('x-powered-by');
  a.get('/peer', (req, res) => {
    res.json({ peer: req.socket.remoteAddress ?? null, protocol: req.protocol, forwarded: req.get('x-forwarded-for') ?? null });
  });
  a.post('/echo', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('content-type', req.get('content-type') ?? 'application/octet-stream');
      res.end(Buffer.concat(chunks));
    });
  });
  a.get('/cookies', (_req, res) => {
    res.append('set-cookie', 'a=1; Path=/');
    res.append('set-cookie', 'b=2; Path=/');
    res.status(201).json({ ok: true });
  });
  a.delete('/nothing', (_req, res) => {
    res.status(204).end();
  });
  // Writes one event, then the next only when the test asks (res.write is exposed through `streams`).
  a.get('/events', (_req, res) => {
    res.on('close', () => closed.push({ finished: res.writableFinished }));
    res.setHeader('content-type', 'text/event-stream');
    res.flushHeaders();
    res.write('data: 0\n\n');
    streams.push(res);
  });
  return { handler: fetchFromNode(a), closed, streams };
}

const text = (chunk: Uint8Array | undefined) => new TextDecoder().decode(chunk);

describe('fetchFromNode: an Express app served from fetch Requests, in memory', () => {
  it('gives the app the peer address from the context (none without it) and the https of the URL', async () => {
    const { handler } = app();
    const withPeer = await handler(new Request('https://example.test/peer', { headers: { 'x-forwarded-for': '203.0.113.9' } }), { clientIp: '198.51.100.7' });
    expect(await withPeer.json()).toEqual({ peer: '198.51.100.7', protocol: 'https', forwarded: '203.0.113.9' });
    const without = await handler(new Request('http://example.test/peer'));
    expect(await without.json()).toEqual({ peer: null, protocol: 'http', forwarded: null });
  });

  it('passes request bodies byte for byte (binary and multipart) and keeps the response headers, less hop-by-hop ones', async () => {
    const { handler } = app();
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
    const res = await handler(new Request('http://example.test/echo', { method: 'POST', body: bytes, headers: { 'content-type': 'application/octet-stream' } }));
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    expect(res.headers.get('connection')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBeNull();

    const form = new FormData();
    form.set('prompt', 'a paper boat');
    form.set('input_reference', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'ref.png');
    const request = new Request('http://example.test/echo', { method: 'POST', body: form });
    const sent = await request.clone().text();
    const echoed = await handler(request);
    expect(echoed.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(await echoed.text()).toBe(sent);
  });

  it('keeps the status, repeated Set-Cookie headers and null bodies (204, HEAD)', async () => {
    const { handler } = app();
    const cookies = await handler(new Request('http://example.test/cookies'));
    expect(cookies.status).toBe(201);
    expect(cookies.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    const empty = await handler(new Request('http://example.test/nothing', { method: 'DELETE' }));
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const head = await handler(new Request('http://example.test/peer', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(head.body).toBeNull();
  });

  it('streams: each write reaches Response.body before the next is made, and the end ends it', async () => {
    const { handler, streams, closed } = app();
    const res = await handler(new Request('http://example.test/events'));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(text((await reader.read()).value)).toBe('data: 0\n\n');
    const server = streams[0] as ServerResponse;
    server.write('data: 1\n\n');
    expect(text((await reader.read()).value)).toBe('data: 1\n\n');
    const closing = once(server, 'close');
    server.end('data: [DONE]\n\n');
    expect(text((await reader.read()).value)).toBe('data: [DONE]\n\n');
    expect((await reader.read()).done).toBe(true);
    await closing;
    expect(closed).toEqual([{ finished: true }]);
  });

  it('an aborted request signal is a client gone: the app sees its response closed before it finished', async () => {
    const { handler, streams, closed } = app();
    const controller = new AbortController();
    const res = await handler(new Request('http://example.test/events', { signal: controller.signal }));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(text((await reader.read()).value)).toBe('data: 0\n\n');
    const server = streams[0] as ServerResponse;
    const closing = once(server, 'close');
    controller.abort();
    await closing;
    expect(closed).toEqual([{ finished: false }]);
    await expect(reader.read()).rejects.toThrow();
  });

  it('a cancelled Response.body is a client gone too', async () => {
    const { handler, streams, closed } = app();
    const res = await handler(new Request('http://example.test/events'));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const closing = once(streams[0] as ServerResponse, 'close');
    await reader.cancel();
    await closing;
    expect(closed).toEqual([{ finished: false }]);
  });

  it('refuses a request whose signal is already aborted, and rejects one aborted before the answer', async () => {
    const { handler } = app();
    await expect(handler(new Request('http://example.test/peer', { signal: AbortSignal.abort() }))).rejects.toThrow(/abort/i);
    const controller = new AbortController();
    const pending = handler(new Request('http://example.test/echo', { method: 'POST', body: new ReadableStream({ start: () => undefined }), duplex: 'half', signal: controller.signal } as RequestInit));
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
  });
});
