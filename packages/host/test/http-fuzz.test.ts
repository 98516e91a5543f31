import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { pino } from 'pino';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgHttpApp, type PgHttpApp } from './support/pg-http-app.js';

/**
 * A fuzz run over every endpoint (PostgreSQL stores, so database errors surface too): malformed JSON,
 * wrong types, huge strings, NUL bytes and invalid UTF-8, odd encodings and charsets, repeated headers,
 * odd methods, long paths and query strings. No answer may be a 5xx, no log line may be at error level.
 */

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 1_500);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_123);

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | null;
}

/** Percent-encodes every UTF-8 byte (encodeURIComponent throws on a lone surrogate). */
const pct = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const printable = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

function arbitraries(ctx: { key: string; taskId: string; keyId: string; alertId: string }) {
  const segment = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(ctx.taskId, ctx.keyId, ctx.alertId, 'sandbox.echo-chat', 'sandbox.pixel-image', 'output-0.png', 'output-0.txt') },
    { weight: 2, arbitrary: fc.uuid().map((u) => (Math.random() < 0.5 ? u.toUpperCase() : u)) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }).map(pct) },
    { weight: 1, arbitrary: fc.constantFrom('%E0%A4%A', '%00', '..', '%2F', '%ZZ', '.', '%C0%AF', 'x'.repeat(5_000), '%F0%9F%92%A9') },
  );
  const templates = [
    '/models', '/models/{}', '/models/popular', '/models/{}/pricing', '/pricing', '/run/{}', '/run/tasks/{}', '/run/tasks/{}/cancel',
    '/run/tasks/{}/callbacks', '/api-keys', '/api-keys/{}', '/billing/balance', '/billing/topup', '/billing/transactions', '/billing/alerts',
    '/billing/alerts/{}', '/billing/stripe/webhook', '/files/{}/{}', '/webhook-secret', '/webhook-secret/rotate', '/{}', '/{}/{}/{}',
  ];
  const path = fc.tuple(fc.constantFrom(...templates), fc.array(segment, { minLength: 3, maxLength: 3 })).map(([t, segs]) => {
    let i = 0;
    return `/api/v1${t.replace(/\{\}/g, () => segs[i++] ?? '')}`;
  });
  const query = fc.oneof(
    { weight: 4, arbitrary: fc.constant('') },
    {
      weight: 3,
      arbitrary: fc
        .array(fc.tuple(fc.constantFrom('page', 'per_page', 'task', 'provider', 'search', 'expires', 'signature', 'x'), fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String))), { maxLength: 6 })
        .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${pct(v)}`).join('&')}`),
    },
    { weight: 1, arbitrary: fc.constantFrom(`?search=${'q'.repeat(8_000)}`, '?page=%E0%A4%A', '?page[]=1&page[]=2', '?per_page=1e400', '?task=video&task[x]=1') },
  );
  const fields = fc.dictionary(
    fc.constantFrom('prompt', 'amount', 'threshold', 'name', 'rate_limit_per_minute', 'rate_limit_per_day', 'ip_whitelist', 'video_params', 'image_params', 'llm_params', 'callback_url', 'generation_type', 'extra'),
    fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ unit: 'binary', maxLength: 30 }), fc.constantFrom('a\u0000b', '\ud800', 1e308, -0, 'http://127.0.0.1/x', ['10.0.0.0/8', '::1'])),
    { maxKeys: 5 },
  );
  const body = fc.oneof(
    { weight: 3, arbitrary: fields.map((o) => Buffer.from(JSON.stringify(o))) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
    { weight: 2, arbitrary: fc.string({ maxLength: 60 }).map((s) => Buffer.from(s)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constantFrom(Buffer.from(JSON.stringify({ prompt: 'p'.repeat(300_000) })), Buffer.from(JSON.stringify({ name: 'n'.repeat(2_000_000) }))) },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | string[]>('application/json') },
    {
      weight: 3,
      arbitrary: fc.constantFrom<string | string[]>(
        'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/json; charset=utf-nope',
        'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', ';;;', 'application/json; charset', 'application/*',
        ['application/json', 'text/plain'], 'APPLICATION/JSON',
      ),
    },
    { weight: 1, arbitrary: printable(40) },
  );
  const encoding = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | string[] | null>(null) },
    { weight: 3, arbitrary: fc.constantFrom<string | string[] | null>('gzip', 'deflate', 'br', 'zstd', 'identity', 'identity, foo', 'foo', 'gzip, gzip', ['gzip', 'br'], 'GZIP') },
    { weight: 1, arbitrary: printable(20) },
  );
  const authorization = fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | string[] | null>(`Bearer ${ctx.key}`) },
    { weight: 2, arbitrary: fc.constantFrom<string | string[] | null>(null, 'Bearer', `Bearer ${ctx.key}x`, [`Bearer ${ctx.key}`, 'Bearer other'], `bearer  ${ctx.key}  `) },
    { weight: 1, arbitrary: printable(60) },
  );
  return fc
    .record({
      method: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') }, { weight: 1, arbitrary: fc.constantFrom('PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'PURGE') }),
      path,
      query,
      body,
      contentType,
      encoding,
      gzipBody: fc.boolean(),
      authorization,
      idempotencyKey: fc.option(fc.oneof(printable(30), fc.constant('k'.repeat(5_000))), { freq: 4 }),
      extra: fc.dictionary(fc.constantFrom('x-request-id', 'x-forwarded-for', 'stripe-signature', 'accept', 'accept-encoding', 'range'), printable(80), { maxKeys: 3 }),
    })
    .map((r): FuzzRequest => {
      const headers: Record<string, string | string[]> = { ...r.extra };
      if (r.authorization !== null) headers['authorization'] = r.authorization;
      if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey;
      let body = r.body;
      if (body !== null) {
        headers['content-type'] = r.contentType;
        if (r.encoding !== null) {
          headers['content-encoding'] = r.encoding;
          if (r.encoding === 'gzip' && r.gzipBody) body = gzipSync(body);
        }
      }
      return { method: r.method, path: `${r.path}${r.query}`, headers, body };
    });
}

/** Requests that are valid but for one tricky value (NUL bytes, lone surrogates, long or odd strings and numbers). */
function nearValid(ctx: { key: string; taskId: string; keyId: string; alertId: string }) {
  const tricky = fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    fc.constantFrom('a\u0000b', '\u0000', '\ud800x', 'x\udfff', '\u202eevil', 'ok', ' padded ', 'a'.repeat(100), '%00', "'; drop table users; --", '\\'),
  );
  const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0.01, 1e-9, 1e9, 10_000.001, 2 ** 53, -1, 0));
  const auth = { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' };
  const json = (method: string, path: string, body: unknown, extra: Record<string, string> = {}): FuzzRequest => ({
    method,
    path,
    headers: { ...auth, ...extra },
    body: Buffer.from(JSON.stringify(body)),
  });
  return fc.oneof(
    fc.record({ name: tricky, ip: fc.array(tricky, { maxLength: 2 }), rpm: fc.option(number) }).map((b) =>
      json('POST', '/api/v1/api-keys', { name: b.name, ...(b.ip.length ? { ip_whitelist: b.ip } : {}), ...(b.rpm !== null ? { rate_limit_per_minute: b.rpm } : {}) }),
    ),
    fc.record({ name: tricky }).map((b) => json('PUT', `/api/v1/api-keys/${ctx.keyId}`, b)),
    number.map((threshold) => json('POST', '/api/v1/billing/alerts', { threshold })),
    number.map((amount) => json('POST', '/api/v1/billing/topup', { amount })),
    fc.record({ prompt: tricky, model: fc.constantFrom('sandbox.echo-chat', 'sandbox.pixel-image'), idem: fc.option(tricky), cb: fc.option(tricky) }).map((b) =>
      json(
        'POST',
        `/api/v1/run/${b.model}`,
        { prompt: b.prompt, ...(b.cb !== null ? { callback_url: `https://example.com/${b.cb}` } : {}) },
        b.idem !== null ? { 'idempotency-key': pct(b.idem) } : {},
      ),
    ),
    fc.record({ search: tricky, provider: tricky, page: fc.oneof(number.map(String), tricky) }).map(
      (q): FuzzRequest => ({
        method: 'GET',
        path: `/api/v1/models?search=${pct(q.search)}&provider=${pct(q.provider)}&page=${pct(q.page)}`,
        headers: auth,
        body: null,
      }),
    ),
    fc.record({ page: number, perPage: number }).map(
      (q): FuzzRequest => ({ method: 'GET', path: `/api/v1/billing/transactions?page=${q.page}&per_page=${q.perPage}`, headers: auth, body: null }),
    ),
  );
}

function send(base: URL, r: FuzzRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: base.hostname, port: base.port, method: r.method, path: r.path, headers: r.headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body ?? undefined);
  });
}

describe('fuzz: every endpoint answers bad input with a 4xx', () => {
  let app: PgHttpApp;
  const errorLines: string[] = [];
  let ctx: { key: string; taskId: string; keyId: string; alertId: string };

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) if ((JSON.parse(l) as { level: number }).level >= 50) errorLines.push(l);
        cb();
      },
    });
    app = await openPgHttpApp({
      withQueue: true,
      logger: pino({ level: 'info' }, sink),
      stripeWebhook: { stripe: new Stripe('sk_test_fuzz'), webhookSecret: 'whsec_fuzz' },
    });
    const { key } = await app.user(1_000);
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const run = (await (await fetch(`${app.url}/run/sandbox.echo-chat`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: 'seed' }) })).json()) as { task_id: string };
    const created = (await (await fetch(`${app.url}/api-keys`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'spare' }) })).json()) as { id: string };
    const alert = (await (await fetch(`${app.url}/billing/alerts`, { method: 'POST', headers: auth, body: JSON.stringify({ threshold: 5 }) })).json()) as { id: string };
    ctx = { key, taskId: run.task_id, keyId: created.id, alertId: alert.id };
  });

  afterAll(async () => {
    await app?.close();
  });

  it(`${RUNS + Math.ceil(RUNS / 3)} generated requests: 0 responses >= 500 and no error-level log line`, { timeout: 300_000 }, async () => {
    const base = new URL(app.url);
    const requests = [...fc.sample(arbitraries(ctx), { numRuns: RUNS, seed: SEED }), ...fc.sample(nearValid(ctx), { numRuns: Math.ceil(RUNS / 3), seed: SEED })];
    const failures: string[] = [];
    const byStatus = new Map<number, number>();
    const resets: string[] = [];
    for (const r of requests) {
      const status = await send(base, r).catch((err: Error) => {
        // The server may close a connection on a malformed request; that is not a 5xx.
        if (/ECONNRESET|socket hang up|EPIPE/.test(err.message)) {
          resets.push(`${r.method} ${r.path.length} ${JSON.stringify(r.headers).length} ${r.body?.length ?? 0} ${err.message}`);
          return 0;
        }
        throw err;
      });
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      if (status >= 500) failures.push(`${status} ${r.method} ${r.path.slice(0, 120)} ${JSON.stringify(r.headers).slice(0, 200)} ${r.body?.subarray(0, 80).toString('utf8') ?? ''}`);
    }
    process.stdout.write(`fuzz: ${requests.length} requests (seed ${SEED}), statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort((a, b) => a[0] - b[0])))}\n`);
    if (process.env['FUZZ_DEBUG']) process.stdout.write(`${resets.join('\n')}\n`);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(errorLines.slice(0, 5)).toEqual([]);
  });
});
