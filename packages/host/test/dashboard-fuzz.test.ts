import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboardApp, ORIGIN, type DashboardApp } from './support/dashboard-app.js';

/**
 * A fuzz run over the dashboard's routes (PostgreSQL stores, the pg-boss link queue): the sign-in link and
 * its use, the session, the operator views and the /api/v1 seam a session opens. Malformed JSON, wrong types,
 * odd cookies (session, pre-sign-in), CSRF tokens, Origin and Sec-Fetch-Site headers, methods and paths.
 * No answer may be a 5xx, no log line may be at error level.
 */

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 900);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_125);

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | null;
}

const pct = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const printable = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

interface Ctx {
  operator: { cookie: string; csrf: string; userId: string };
  user: { cookie: string; csrf: string; userId: string };
  keyId: string;
  token: string;
}

function arbitraries(ctx: Ctx) {
  const segment = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(ctx.user.userId, ctx.keyId, ctx.operator.userId) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map(pct) },
    { weight: 1, arbitrary: fc.constantFrom('%E0%A4%A', '%00', '..', '%2F', '%ZZ', 'x'.repeat(3_000)) },
  );
  const templates = [
    '/dashboard/api/config', '/dashboard/api/auth/link', '/dashboard/api/auth/verify', '/dashboard/api/session', '/dashboard/api/operator/users',
    '/dashboard/api/operator/users/{}', '/dashboard/api/operator/users/{}/credits', '/dashboard/api/operator/users/{}/api-keys/{}',
    '/dashboard/api/operator/providers', '/dashboard/api/operator/queue', '/dashboard/api/operator/failures', '/dashboard/api/operator/usage', '/dashboard/api/{}', '/dashboard/api/auth/{}',
    '/api/v1/api-keys', '/api/v1/billing/balance', '/api/v1/run/tasks', '/api/v1/billing/alerts', '/api/v1/usage',
  ];
  const path = fc.tuple(fc.constantFrom(...templates), fc.array(segment, { minLength: 2, maxLength: 2 })).map(([t, segs]) => {
    let i = 0;
    return t.replace(/\{\}/g, () => segs[i++] ?? '');
  });
  const query = fc.oneof(
    { weight: 4, arbitrary: fc.constant('') },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.tuple(fc.constantFrom('page', 'per_page', 'search', 'hours', 'x', 'from', 'to', 'group_by', 'format'), fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String))), { maxLength: 4 })
        .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${pct(v)}`).join('&')}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('?search[]=a&search[]=b', '?page=1e400', '?hours=-1', `?search=${'q'.repeat(5_000)}`) },
  );
  const tricky = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ unit: 'binary', maxLength: 30 }), fc.constantFrom('a\u0000b', '\ud800', 1e308, -0, 'x'.repeat(300)));
  const fields = fc.dictionary(fc.constantFrom('email', 'token', 'confirm', 'credits', 'description', 'name', 'extra'), tricky, { maxKeys: 4 });
  const body = fc.oneof(
    { weight: 3, arbitrary: fields.map((o) => Buffer.from(JSON.stringify(o))) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => Buffer.from(s)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constantFrom(Buffer.from(JSON.stringify({ email: `${'a'.repeat(300_000)}@example.com` })), Buffer.from(JSON.stringify({ token: 't'.repeat(70_000) }))) },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  const session = fc.constantFrom(ctx.operator, ctx.user);
  const cookie = fc.oneof(
    { weight: 3, arbitrary: session.map((s) => s.cookie) },
    { weight: 1, arbitrary: fc.constant<string | null>(null) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'gengate_session=', 'gengate_session=%ZZ', `gengate_session=${'x'.repeat(43)}`, 'gengate_sign_in=%E0%A4%A', `gengate_sign_in=${'y'.repeat(43)}`,
        `${ctx.user.cookie}; gengate_sign_in=${'z'.repeat(43)}`, `${ctx.user.cookie}; ${ctx.operator.cookie}`, ';;=;', 'gengate_session="quoted"',
      ),
    },
    { weight: 1, arbitrary: printable(80) },
  );
  const csrf = fc.oneof(
    { weight: 3, arbitrary: session.map((s): string | null => s.csrf) },
    { weight: 1, arbitrary: fc.constantFrom<string | null>(null, '', 'wrong', 'x'.repeat(43)) },
    { weight: 1, arbitrary: printable(60) },
  );
  const origin = fc.oneof(
    { weight: 4, arbitrary: fc.constant<string | null>(ORIGIN) },
    { weight: 2, arbitrary: fc.constantFrom<string | null>(null, 'null', 'https://evil.example', 'http://gengate.test:80', 'not a url', 'http://[::1') },
    { weight: 1, arbitrary: printable(40) },
  );
  return fc
    .record({
      method: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE') }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'OPTIONS', 'HEAD') }),
      path,
      query,
      body,
      contentType: fc.oneof(
        { weight: 5, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom('application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', ';;;', 'APPLICATION/JSON') },
      ),
      cookie,
      csrf,
      origin,
      fetchSite: fc.option(fc.constantFrom('same-origin', 'cross-site', 'same-site', 'none', 'junk'), { freq: 3 }),
      referer: fc.option(fc.constantFrom(`${ORIGIN}/dashboard/`, 'https://evil.example/', '::::'), { freq: 4 }),
    })
    .map((r): FuzzRequest => {
      const headers: Record<string, string | string[]> = { host: 'gengate.test' };
      if (r.cookie !== null) headers['cookie'] = r.cookie;
      if (r.csrf !== null) headers['x-csrf-token'] = r.csrf;
      if (r.origin !== null) headers['origin'] = r.origin;
      if (r.fetchSite !== null) headers['sec-fetch-site'] = r.fetchSite;
      if (r.referer !== null) headers['referer'] = r.referer;
      if (r.body !== null) headers['content-type'] = r.contentType;
      // Signing out mid-run would leave the rest of the run without a session: sign-outs come last (signOuts).
      const method = r.method === 'DELETE' && r.path === '/dashboard/api/session' ? 'GET' : r.method;
      return { method, path: `${r.path}${r.query}`, headers, body: r.body };
    });
}

/** DELETE /dashboard/api/session with odd headers, then for real: run after everything else. */
function signOuts(ctx: Ctx): FuzzRequest[] {
  const base = { host: 'gengate.test', origin: ORIGIN };
  return [
    { method: 'DELETE', path: '/dashboard/api/session', headers: { ...base, cookie: ctx.user.cookie }, body: null },
    { method: 'DELETE', path: '/dashboard/api/session', headers: { ...base, cookie: ctx.user.cookie, 'x-csrf-token': ctx.operator.csrf }, body: null },
    { method: 'DELETE', path: '/dashboard/api/session', headers: { ...base, origin: 'https://evil.example', cookie: ctx.user.cookie, 'x-csrf-token': ctx.user.csrf }, body: null },
    { method: 'DELETE', path: '/dashboard/api/session', headers: { ...base, cookie: ctx.user.cookie, 'x-csrf-token': ctx.user.csrf, 'content-type': 'application/json' }, body: Buffer.from('{') },
    { method: 'DELETE', path: '/dashboard/api/session', headers: { ...base, cookie: ctx.user.cookie, 'x-csrf-token': ctx.user.csrf }, body: null },
    { method: 'DELETE', path: '/dashboard/api/session', headers: { ...base, cookie: ctx.user.cookie, 'x-csrf-token': ctx.user.csrf }, body: null },
  ];
}

/** Valid requests but for one tricky value: the sign-in endpoints and the operator's grant. */
function nearValid(ctx: Ctx) {
  const tricky = fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    fc.constantFrom('a\u0000b@example.com', 'x@\ud800.com', 'ok@example.com', ' padded@example.com ', `${'a'.repeat(250)}@example.com`, "o'hara@example.com", ctx.token),
  );
  const json = (method: string, path: string, body: unknown, s?: { cookie: string; csrf: string }): FuzzRequest => ({
    method,
    path,
    headers: { 'content-type': 'application/json', origin: ORIGIN, host: 'gengate.test', ...(s ? { cookie: s.cookie, 'x-csrf-token': s.csrf } : {}) },
    body: Buffer.from(JSON.stringify(body)),
  });
  return fc.oneof(
    tricky.map((email) => json('POST', '/dashboard/api/auth/link', { email })),
    fc.record({ token: tricky, confirm: fc.option(fc.oneof(fc.boolean(), tricky)) }).map((b) =>
      json('POST', '/dashboard/api/auth/verify', b.confirm === null ? { token: b.token } : b, ctx.user),
    ),
    fc.record({ credits: fc.oneof(fc.double(), fc.integer(), fc.constantFrom(1e-9, 2 ** 53, -1, 0)), description: tricky }).map((b) =>
      json('POST', `/dashboard/api/operator/users/${ctx.user.userId}/credits`, b, ctx.operator),
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

describe('fuzz: the dashboard routes answer bad input with a 4xx', () => {
  let h: DashboardApp;
  let server: Server;
  let base: URL;
  let ctx: Ctx;
  const errorLines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) if ((JSON.parse(l) as { level: number }).level >= 50) errorLines.push(l);
        cb();
      },
    });
    h = await openDashboardApp({ logger: pino({ level: 'info' }, sink) });
    await h.gengate.admin.createUser({ email: 'fuzz-op@example.com' });
    const target = await h.gengate.admin.createUser({ email: 'fuzz-user@example.com', credits: 10 });
    await h.services.directory.setRole('fuzz-op@example.com', 'operator');
    const operator = await h.signIn('fuzz-op@example.com');
    const user = await h.signIn('fuzz-user@example.com');
    const before = h.mails.length;
    await h.services.auth.requestLink({ email: 'fuzz-user@example.com' }, 'b'.repeat(43));
    const token = /#token=([A-Za-z0-9_-]{43})/.exec((await h.nextMail(before, 'fuzz-user@example.com')).text)?.[1] ?? '';
    const keys = await h.pool.query<{ id: string }>('select id from gengate.api_keys where user_id = $1', [target.user_id]);
    ctx = { operator, user, keyId: keys.rows[0]?.id ?? '', token };
    server = h.app.listen(0, '127.0.0.1');
    await new Promise<void>((r) => server.once('listening', () => r()));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });

  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await h?.close();
  });

  it(`${RUNS + Math.ceil(RUNS / 3) + 6} generated requests: 0 responses >= 500 and no error-level log line`, { timeout: 300_000 }, async () => {
    const requests = [...fc.sample(arbitraries(ctx), { numRuns: RUNS, seed: SEED }), ...fc.sample(nearValid(ctx), { numRuns: Math.ceil(RUNS / 3), seed: SEED }), ...signOuts(ctx)];
    const failures: string[] = [];
    const byStatus = new Map<number, number>();
    for (const r of requests) {
      const status = await send(base, r).catch((err: Error) => {
        // The server may close a connection on a malformed request; that is not a 5xx.
        if (/ECONNRESET|socket hang up|EPIPE/.test(err.message)) return 0;
        throw err;
      });
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      if (status >= 500) failures.push(`${status} ${r.method} ${r.path.slice(0, 120)} ${JSON.stringify(r.headers).slice(0, 300)} ${r.body?.subarray(0, 80).toString('utf8') ?? ''}`);
    }
    await h.settle();
    process.stdout.write(`dashboard fuzz: ${requests.length} requests (seed ${SEED}), statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort((a, b) => a[0] - b[0])))}\n`);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(errorLines.slice(0, 5)).toEqual([]);
  });
});
