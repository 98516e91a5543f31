import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptAbortedError, ForbiddenTargetError, postCallback } from './post-callback.js';

interface Receiver {
  url: string;
  open(): number;
  closed(): number;
  close(): Promise<void>;
}

async function receiver(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  let open = 0;
  let closed = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    handler(req, res);
  });
  server.on('connection', (s) => {
    open++;
    s.on('close', () => {
      open--;
      closed++;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    open: () => open,
    closed: () => closed,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Resolves when cond() holds (polled), or fails after the timeout (a deadline for a lost event, not a speed target). */
async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('postCallback', () => {
  const receivers: Receiver[] = [];
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });
  const opts = { allowPrivate: true, timeoutMs: 500 };

  it('answers the status of a normal receiver and closes the connection', async () => {
    const r = await receiver((_req, res) => res.end('ok'));
    receivers.push(r);
    expect(await postCallback(r.url, '{}', {}, opts)).toEqual({ statusCode: 200 });
    await until(() => r.open() === 0);
  });

  it('cuts off a receiver that never answers at the deadline and closes the socket', async () => {
    const r = await receiver(() => undefined);
    receivers.push(r);
    // The receiver never answers: only the deadline can end the attempt, and its error says so.
    await expect(postCallback(r.url, '{}', {}, opts)).rejects.toThrow(/no complete answer within 500 ms/);
    await until(() => r.open() === 0);
  });

  it('a receiver that sends its headers then trickles its body: the status stands, the socket is closed at the deadline', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(202);
      const t = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(t));
    });
    receivers.push(r);
    const started = Date.now();
    expect(await postCallback(r.url, '{}', {}, opts)).toEqual({ statusCode: 202 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    await until(() => r.open() === 0);
  });

  it('reads at most maxResponseBytes of the answer, then closes', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(500);
      res.write(Buffer.alloc(4_096));
      // never ends
    });
    receivers.push(r);
    // The answer never ends and the deadline is past the test's own timeout: only the byte limit can end the attempt.
    expect(await postCallback(r.url, '{}', {}, { ...opts, timeoutMs: 3_600_000, maxResponseBytes: 1_024 })).toEqual({ statusCode: 500 });
    await until(() => r.open() === 0);
  });

  it('a shutdown signal ends the attempt at once', async () => {
    const r = await receiver(() => undefined);
    receivers.push(r);
    const stop = new AbortController();
    const attempt = postCallback(r.url, '{}', {}, { ...opts, timeoutMs: 10_000, signal: stop.signal });
    await until(() => r.open() === 1);
    stop.abort();
    await expect(attempt).rejects.toBeInstanceOf(AttemptAbortedError);
    await until(() => r.open() === 0);
    await expect(postCallback(r.url, '{}', {}, { ...opts, signal: stop.signal })).rejects.toBeInstanceOf(AttemptAbortedError);
  });

  it('keeps refusing private targets (literal addresses and names that resolve to them)', async () => {
    await expect(postCallback('http://127.0.0.1:9/x', '{}', {}, { allowPrivate: false, timeoutMs: 500 })).rejects.toBeInstanceOf(ForbiddenTargetError);
    await expect(postCallback('http://localhost:9/x', '{}', {}, { allowPrivate: false, timeoutMs: 500 })).rejects.toBeInstanceOf(ForbiddenTargetError);
  });
});
