import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { createSandboxAdapter, FalAdapter, ReplicateAdapter, RunwayAdapter } from '@gengate/adapters';
import type { ProviderAdapter } from '@gengate/core';
import { createMemoryGengate, FakeFal, FakeReplicate } from '@gengate/testing';
import express from 'express';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';

/**
 * A fuzz run over the provider webhook route, POST /api/v1/providers/{provider}/webhook: fal and Replicate
 * configured (their keys and secret from the fakes) and not configured, Runway and the sandbox (no
 * webhooks), unknown providers; bodies (JSON of any shape, bytes, empty, over the 4 MiB limit), content
 * types and encodings (corrupt gzip too), signature headers absent, partial, garbage, stale or valid over a
 * garbage body, task ids, methods. No answer may be a 5xx, no log line may be at error level.
 */

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 1_200);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_125);

interface FuzzRequest {
  app: 'configured' | 'unconfigured';
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | null;
}

const printable = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });
const pct = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

function arbitraries(fal: FakeFal, replicate: FakeReplicate) {
  const provider = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('fal', 'replicate') },
    { weight: 2, arbitrary: fc.constantFrom('runway', 'sandbox', 'stripe', 'FAL', 'nobody') },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map(pct) },
  );
  const task = fc.oneof(
    fc.constant(''),
    fc.uuid().map((u) => `?task=${u}`),
    fc.string({ maxLength: 40 }).map((s) => `?task=${pct(s)}`),
    fc.constantFrom('?task=a&task=b', '?task[x]=1', '?task=%E0%A4%A', `?task=${'9'.repeat(5_000)}`),
  );
  const json = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({ id: fc.string(), status: fc.constantFrom('succeeded', 'failed', 'canceled', 'processing', 'starting', 'x'), output: fc.jsonValue({ maxDepth: 2 }), error: fc.option(fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] }),
    fc.record({ request_id: fc.string(), status: fc.constantFrom('OK', 'ERROR', 'x'), payload: fc.jsonValue({ maxDepth: 2 }), error: fc.option(fc.string()), payload_error: fc.option(fc.string()) }, { requiredKeys: [] }),
  );
  const body = fc.oneof(
    { weight: 5, arbitrary: json.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
    { weight: 2, arbitrary: fc.string({ maxLength: 80 }).map((s) => Buffer.from(s)) },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constantFrom(Buffer.alloc(0), Buffer.from('{"id":"' + 'x'.repeat(3_000_000) + '"}'), Buffer.alloc(4 * 1_048_576 + 10, 0x7b)) },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  const contentType = fc.oneof(
    { weight: 5, arbitrary: fc.constant<string | string[] | null>('application/json') },
    {
      weight: 3,
      arbitrary: fc.constantFrom<string | string[] | null>(
        null, 'text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
        'application/json; charset=utf-16', 'application/json; charset=nope', ';;;', ['application/json', 'text/plain'],
      ),
    },
    { weight: 1, arbitrary: printable(40) },
  );
  const encoding = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | null>(null) },
    { weight: 2, arbitrary: fc.constantFrom<string | null>('gzip', 'deflate', 'br', 'zstd', 'identity', 'foo', 'gzip, gzip') },
  );
  /** Which signature headers, and how: none, some, garbage, stale, or a valid signature over the fuzzed body. */
  const signing = fc.constantFrom('none', 'valid', 'valid-other-provider', 'partial', 'garbage', 'stale', 'tampered');
  const garbageValue = fc.oneof(printable(200), fc.constantFrom('', ' ', 'v1,', 'v1,' + 'A'.repeat(44), 'v2,abc', '0'.repeat(128), 'zz'.repeat(64), '-1', '99999999999999999999', '1e3', 'NaN'));
  return fc
    .record({
      app: fc.constantFrom<'configured' | 'unconfigured'>('configured', 'configured', 'configured', 'unconfigured'),
      method: fc.oneof({ weight: 8, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') }),
      provider,
      task,
      body,
      contentType,
      encoding,
      gzipBody: fc.boolean(),
      signing,
      garbage: fc.array(garbageValue, { minLength: 4, maxLength: 4 }),
      dropped: fc.integer({ min: 0, max: 3 }),
      extra: fc.dictionary(fc.constantFrom('x-request-id', 'authorization', 'x-forwarded-for', 'webhook-id', 'x-fal-webhook-user-id'), printable(60), { maxKeys: 2 }),
    })
    .map((r): FuzzRequest => {
      const raw = r.body ?? Buffer.alloc(0);
      const text = raw.toString('utf8');
      const signFor = (p: string): Record<string, string> =>
        p === 'fal' ? fal.signWebhook(`req-${raw.length}`, text) : replicate.signWebhook(`msg_${raw.length}`, text);
      const target = r.provider === 'fal' ? 'fal' : 'replicate';
      const other = target === 'fal' ? 'replicate' : 'fal';
      let sig: Record<string, string> = {};
      if (r.signing === 'valid') sig = signFor(target);
      if (r.signing === 'valid-other-provider') sig = signFor(other);
      if (r.signing === 'partial') sig = Object.fromEntries(Object.entries(signFor(target)).filter((_, i) => i !== r.dropped && i !== 0));
      if (r.signing === 'garbage') sig = Object.fromEntries(Object.keys(signFor(target)).filter((k) => k !== 'content-type').map((k, i) => [k, r.garbage[i] ?? '']));
      if (r.signing === 'stale') sig = target === 'fal' ? fal.signWebhook('req-stale', text, Math.floor(Date.now() / 1000) - 3_600) : replicate.signWebhook('msg_stale', text, new Date(Date.now() - 3_600_000));
      if (r.signing === 'tampered') sig = signFor(target);
      delete sig['content-type'];
      const headers: Record<string, string | string[]> = { ...r.extra, ...sig };
      let body = r.signing === 'tampered' ? Buffer.concat([raw, Buffer.from(' ')]) : r.body;
      if (body !== null) {
        if (r.contentType !== null) headers['content-type'] = r.contentType;
        if (r.encoding !== null) {
          headers['content-encoding'] = r.encoding;
          if (r.encoding === 'gzip' && r.gzipBody) body = gzipSync(body);
        }
      }
      return { app: r.app, method: r.method, path: `/api/v1/providers/${r.provider}/webhook${r.task}`, headers, body };
    });
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

describe('fuzz: provider webhooks never answer with a 5xx', () => {
  let fal: FakeFal;
  let replicate: FakeReplicate;
  const servers: Server[] = [];
  const bases = new Map<FuzzRequest['app'], URL>();
  const errorLines: string[] = [];

  beforeAll(async () => {
    fal = await FakeFal.start();
    replicate = await FakeReplicate.start();
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) if ((JSON.parse(l) as { level: number }).level >= 50) errorLines.push(l.slice(0, 400));
        cb();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const listen = async (which: FuzzRequest['app'], adapters: readonly ProviderAdapter[]) => {
      const memory = createMemoryGengate({ adapters });
      const app = express().use('/api/v1', createGengateRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger }));
      const server = await new Promise<Server>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      servers.push(server);
      bases.set(which, new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    };
    await listen('configured', [
      createSandboxAdapter(),
      new FalAdapter({ apiKey: 'fal-fuzz-key', jwksUrl: fal.jwksUrl }),
      new ReplicateAdapter({ apiKey: 'r8_fuzz0123456789', baseURL: replicate.baseUrl }),
      new RunwayAdapter({ apiKey: 'runway-fuzz-key', baseURL: 'http://127.0.0.1:9' }),
    ]);
    await listen('unconfigured', [createSandboxAdapter(), new FalAdapter({ jwksUrl: fal.jwksUrl }), new ReplicateAdapter({ baseURL: replicate.baseUrl }), new RunwayAdapter()]);
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    await Promise.all([fal?.close(), replicate?.close()]);
  });

  it(`${RUNS} generated webhook requests: 0 responses >= 500, no error-level log line, the keys fetched at most once each`, { timeout: 300_000 }, async () => {
    const requests = fc.sample(arbitraries(fal, replicate), { numRuns: RUNS, seed: SEED });
    const failures: string[] = [];
    const byStatus = new Map<number, number>();
    for (const r of requests) {
      const status = await send(bases.get(r.app) as URL, r).catch((err: Error) => {
        // The server may close a connection on a malformed request (e.g. a body past the limit); not a 5xx.
        if (/ECONNRESET|socket hang up|EPIPE/.test(err.message)) return 0;
        throw err;
      });
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      if (status >= 500) failures.push(`${status} ${r.app} ${r.method} ${r.path.slice(0, 100)} ${JSON.stringify(r.headers).slice(0, 300)} ${r.body?.subarray(0, 80).toString('utf8') ?? ''}`);
    }
    process.stdout.write(`webhook fuzz: ${requests.length} requests (seed ${SEED}), statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort((a, b) => a[0] - b[0])))}, 5xx: ${failures.length}\n`);
    expect(failures.slice(0, 10)).toEqual([]);
    expect(errorLines.slice(0, 5)).toEqual([]);
    expect(byStatus.get(200) ?? 0).toBeGreaterThan(0); // some requests were verified and acknowledged
    expect(replicate.upstream.callsTo('GET', '/v1/webhooks/default/secret').length).toBeLessThanOrEqual(1);
    expect(fal.upstream.callsTo('GET', '/.well-known/jwks.json').length).toBeLessThanOrEqual(1);
  });
});
