import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.js';
import { createRequestScopedLogger } from '../request-log-scope.js';
import { logAnsweredAtDebug, requestContext } from './request-context.js';

interface Line {
  level: number;
  msg: string;
  req?: { id: string; method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
  err?: { message: string };
  refusal?: string;
}

/** The request's lines as pino-http wrote them: one at its end, the request's own lines carrying `req`. */
describe('requestContext', () => {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination: sink });
  const scoped = createRequestScopedLogger(logger);
  let server: Server;
  let url = '';

  beforeAll(async () => {
    const app = express();
    const api = express.Router();
    api.use(requestContext(logger, { refusalSummaryMs: 60_000 }));
    api.get('/quiet/:id', (_req, res) => void res.json({ ok: true }));
    api.get('/talks', (req, res) => {
      req.log.info({ step: 1 }, 'from the route');
      setImmediate(() => {
        scoped.info({ step: 2 }, 'from a use case, later');
        res.json({ ok: true });
      });
    });
    api.get('/own-log', (req, res) => {
      // An app's own req.log (pino-http assigns one) stays that request's, and others keep theirs.
      const own = logger.child({ own: true });
      req.log = own;
      res.json({ same: req.log === own, enumerable: Object.keys(req).includes('log') });
    });
    api.get('/two-logs', (req, res) => void res.json({ lazy: Object.keys(req).includes('log'), bindings: req.log.bindings() }));
    api.get('/secrets', (req, res) => {
      req.log.info({ key: { apiKey: 'gg_live_route_secret' }, headers: { authorization: 'Bearer gg_live_route_secret' } }, 'route line with secrets');
      scoped.info({ callback: { url: 'https://example.com', webhookSecret: 'whsec_use_case_secret' }, user: { password: 'hunter2-secret' } }, 'use case line with secrets');
      res.json({ ok: true });
    });
    api.get('/fails', (_req, res) => void res.status(500).json({ code: 500 }));
    api.get('/polled/:status', (req, res) => {
      logAnsweredAtDebug(res);
      res.status(Number(req.params['status'])).json({ ok: true });
    });
    api.get('/refused', (_req, res) => void res.status(404).json({ code: 404 }));
    app.use('/api/v1', api);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** The lines of one request, once its end line is written (pino writes asynchronously). */
  async function linesOf(path: string, headers: Record<string, string> = {}): Promise<{ id: string; lines: Line[] }> {
    const res = await fetch(`${url}${path}`, { headers });
    await res.arrayBuffer();
    const id = res.headers.get('x-request-id') ?? '';
    logger.flush();
    await new Promise<void>((resolve) => sink.write('', () => resolve()));
    for (let i = 0; i < 100 && !lines.some((l) => l.req?.id === id && /^request /.test(l.msg)) && path !== '/refused'; i++) await new Promise((r) => setImmediate(r));
    return { id, lines: lines.filter((l) => l.req?.id === id) };
  }

  it('writes one line when a request ends: request id, method, URL, status, time; no header', async () => {
    const { id, lines: mine } = await linesOf('/quiet/abc?x=1', { authorization: 'Bearer gg_live_secret' });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: 30, msg: 'request completed', req: { id, method: 'GET', url: '/api/v1/quiet/abc?x=1' }, res: { statusCode: 200 } });
    expect(typeof mine[0]?.responseTime).toBe('number');
    expect(JSON.stringify(lines)).not.toContain('gg_live_secret');
  });

  it("keeps the caller's sane X-Request-Id; the request's own lines and its use cases' carry `req`", async () => {
    const { id, lines: mine } = await linesOf('/talks', { 'x-request-id': 'client-id-42' });
    expect(id).toBe('client-id-42');
    expect(mine.map((l) => l.msg)).toEqual(['from the route', 'from a use case, later', 'request completed']);
    for (const l of mine) expect(l.req).toEqual({ id, method: 'GET', url: '/api/v1/talks' });
  });

  it('gives each request its own req.log, and one the app assigns replaces it for that request only', async () => {
    const own = (await (await fetch(`${url}/own-log`)).json()) as unknown;
    expect(own).toEqual({ same: true, enumerable: true });
    const first = await fetch(`${url}/two-logs`, { headers: { 'x-request-id': 'first-req' } });
    const second = await fetch(`${url}/two-logs`, { headers: { 'x-request-id': 'second-req' } });
    expect(await first.json()).toEqual({ lazy: false, bindings: { req: { id: 'first-req', method: 'GET', url: '/api/v1/two-logs' } } });
    expect(await second.json()).toEqual({ lazy: false, bindings: { req: { id: 'second-req', method: 'GET', url: '/api/v1/two-logs' } } });
  });

  it("censors credentials in the request's own lines and its use cases' lines, and keeps their `req`", async () => {
    const { id, lines: mine } = await linesOf('/secrets', { authorization: 'Bearer gg_live_header_secret' });
    expect(mine.map((l) => l.msg)).toEqual(['route line with secrets', 'use case line with secrets', 'request completed']);
    expect(mine[0]).toMatchObject({ key: { apiKey: '[redacted]' }, headers: { authorization: '[redacted]' } });
    expect(mine[1]).toMatchObject({ callback: { url: 'https://example.com', webhookSecret: '[redacted]' }, user: { password: '[redacted]' } });
    for (const l of mine) expect(l.req).toEqual({ id, method: 'GET', url: '/api/v1/secrets' });
    const text = JSON.stringify(lines);
    for (const secret of ['gg_live_route_secret', 'whsec_use_case_secret', 'hunter2-secret', 'gg_live_header_secret']) expect(text).not.toContain(secret);
  });

  it('a 5xx is an error-level line; a refusal (4xx) goes to the refusal log instead', async () => {
    const failed = await linesOf('/fails');
    expect(failed.lines).toMatchObject([{ level: 50, msg: 'request errored', res: { statusCode: 500 }, err: { message: 'failed with status code 500' } }]);
    const refused = await linesOf('/refused');
    expect(refused.lines.map((l) => [l.msg, l.refusal])).toEqual([['request refused: http_404 (404)', 'http_404']]);
  });

  it('a route marked logAnsweredAtDebug (the poll) writes no line at info when it succeeds, and its failures as any other', async () => {
    const answered = await fetch(`${url}/polled/200`, { headers: { 'x-request-id': 'polled-ok' } });
    await answered.arrayBuffer();
    const failed = await linesOf('/polled/500');
    // Lines are written in order: once the later request's line is in, the earlier one would be too.
    expect(failed.lines).toMatchObject([{ level: 50, msg: 'request errored', res: { statusCode: 500 } }]);
    expect(lines.filter((l) => l.req?.id === 'polled-ok')).toEqual([]);
    const refused = await linesOf('/polled/429');
    expect(refused.lines.map((l) => [l.msg, l.refusal])).toEqual([['request refused: http_429 (429)', 'http_429']]);
  });

  it('writes the successful poll\'s line at debug when the logger is at debug', async () => {
    const debugLines: Line[] = [];
    const debugSink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n')) if (l) debugLines.push(JSON.parse(l) as Line);
        done();
      },
    });
    const debugLogger = createLogger({ level: 'debug', destination: debugSink });
    const app = express();
    app.use(requestContext(debugLogger));
    app.get('/polled', (_req, res) => {
      logAnsweredAtDebug(res);
      res.json({ ok: true });
    });
    const s = await new Promise<Server>((resolve) => {
      const srv = app.listen(0, '127.0.0.1', () => resolve(srv));
    });
    try {
      const res = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/polled`, { headers: { 'x-request-id': 'polled-debug' } });
      await res.arrayBuffer();
      debugLogger.flush();
      await new Promise<void>((resolve) => debugSink.write('', () => resolve()));
      expect(debugLines.filter((l) => l.req?.id === 'polled-debug')).toMatchObject([{ level: 20, msg: 'request completed', res: { statusCode: 200 } }]);
    } finally {
      s.close();
    }
  });
});
