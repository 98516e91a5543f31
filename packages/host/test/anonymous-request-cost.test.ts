import { AsyncLocalStorage } from 'node:async_hooks';
import { Server } from 'node:http';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { tempDataDir } from './support/spawn-server.js';

/**
 * What an anonymous request (no API key, no session) costs the database, route by route, on the standalone
 * server: every statement a request causes is counted (pg's Client.prototype.query, attributed to the HTTP
 * request whose handling issued it through an AsyncLocalStorage entered when the server emits 'request'),
 * so background work (queue sampling, pg-boss) is not counted. The table and its bounds are the list in
 * docs/deployment.md, "Anonymous requests".
 */

const inRequest = new AsyncLocalStorage<{ statements: number }>();
const N = 20;
const METRICS_TOKEN = 'anonymous-cost-metrics-token';
const UUID = '3f0c2a7e-5b1d-4c8e-9a6f-0d2b4e6a8c1f';
const WELL_FORMED_UNKNOWN_KEY = `gg_live_${'A'.repeat(43)}`;

interface Probe {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Statements allowed for all N requests together. */
  readonly bound: number;
}

const PROBES: readonly Probe[] = [
  { name: 'GET /healthz', method: 'GET', path: '/healthz', bound: 0 },
  { name: 'GET /readyz (database check cached 1 s, shared)', method: 'GET', path: '/readyz', bound: 1 },
  { name: 'GET /metrics without the token (401)', method: 'GET', path: '/metrics', bound: 0 },
  { name: 'GET /metrics with METRICS_TOKEN (gauges cached 5 s, shared)', method: 'GET', path: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` }, bound: 1 },
  { name: 'GET /docs', method: 'GET', path: '/docs', bound: 0 },
  { name: 'GET /docs/init.js', method: 'GET', path: '/docs/init.js', bound: 0 },
  { name: 'GET /api/v1/openapi.json', method: 'GET', path: '/api/v1/openapi.json', bound: 0 },
  { name: 'GET /api/v1/models without a key (401)', method: 'GET', path: '/api/v1/models', bound: 0 },
  { name: 'GET /api/v1/models with a malformed key (401)', method: 'GET', path: '/api/v1/models', headers: { authorization: 'Bearer nope' }, bound: 0 },
  { name: 'GET /api/v1/unknown without a key (401)', method: 'GET', path: '/api/v1/no/such/route', bound: 0 },
  { name: 'POST /api/v1/providers/replicate/webhook (not configured: 404)', method: 'POST', path: '/api/v1/providers/replicate/webhook', body: '{}', bound: 0 },
  { name: 'POST /api/v1/providers/sandbox/webhook (no webhooks: 404)', method: 'POST', path: '/api/v1/providers/sandbox/webhook', body: '{}', bound: 0 },
  { name: 'GET /api/v1/files/<forged signed URL> (403)', method: 'GET', path: `/api/v1/files/${UUID}/output-0.png?expires=9999999999&signature=${'0'.repeat(64)}`, bound: 0 },
  { name: 'GET /api/v1/files/<not a task id> (404)', method: 'GET', path: '/api/v1/files/not-a-uuid/output-0.png', bound: 0 },
  { name: 'GET /', method: 'GET', path: '/', bound: 0 },
  { name: 'GET /dashboard/', method: 'GET', path: '/dashboard/', bound: 0 },
  { name: 'GET /dashboard/tasks (the app, any deep link)', method: 'GET', path: '/dashboard/tasks', bound: 0 },
  { name: 'GET /dashboard/api/config', method: 'GET', path: '/dashboard/api/config', bound: 0 },
  { name: 'GET /dashboard/api/session without a cookie (401)', method: 'GET', path: '/dashboard/api/session', bound: 0 },
  // Credential-shaped values are looked up: one indexed statement each (the authentication itself).
  { name: 'GET /api/v1/models with a well-formed unknown key (401)', method: 'GET', path: '/api/v1/models', headers: { authorization: `Bearer ${WELL_FORMED_UNKNOWN_KEY}` }, bound: N },
  { name: 'GET /dashboard/api/session with an unknown session cookie (401)', method: 'GET', path: '/dashboard/api/session', headers: { cookie: `gengate_session=${'x'.repeat(43)}` }, bound: N },
];

describe('the database cost of anonymous requests', () => {
  let db: TestDatabase;
  let server: RunningServer;
  const originalQuery = pg.Client.prototype.query;
  const originalEmit = Server.prototype.emit;

  beforeAll(async () => {
    // Count every statement issued while handling an HTTP request, whoever issues it.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const scope = inRequest.getStore();
      if (scope) scope.statements++;
      return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pg.Client.prototype.query;
    Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
      if (event === 'request') return inRequest.run(current, () => Reflect.apply(originalEmit, this, [event, ...args]) as boolean);
      return Reflect.apply(originalEmit, this, [event, ...args]) as boolean;
    } as typeof Server.prototype.emit;
    db = await createTestDatabase();
    const env = {
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: tempDataDir(),
      PORT: '0',
      ROLE: 'api',
      QUEUE_SAMPLE_INTERVAL_MS: '60000',
      METRICS_TOKEN,
      RESULT_URL_TTL_SECONDS: '3600',
    };
    server = await startServer(loadConfig(env), { logger: pino({ level: 'silent' }) });
  });

  afterAll(async () => {
    pg.Client.prototype.query = originalQuery;
    Server.prototype.emit = originalEmit;
    await server?.close();
    await db?.drop();
  });

  /** Every request of a probe is counted in this scope (set before the requests are sent). */
  let current = { statements: 0 };

  it(`${N} concurrent requests per anonymous route run at most the documented number of statements`, { timeout: 120_000 }, async () => {
    const measured: { name: string; statements: number; bound: number; status: number }[] = [];
    for (const p of PROBES) {
      current = { statements: 0 };
      const answers = await Promise.all(
        Array.from({ length: N }, () =>
          fetch(`${server.url}${p.path}`, { method: p.method, headers: { ...(p.body ? { 'content-type': 'application/json' } : {}), ...p.headers }, redirect: 'manual', ...(p.body ? { body: p.body } : {}) }).then(
            async (r) => (await r.arrayBuffer(), r.status),
          ),
        ),
      );
      measured.push({ name: p.name, statements: current.statements, bound: p.bound, status: answers[0] ?? 0 });
      expect(answers.every((s) => s < 500), `${p.name}: ${answers.join(',')}`).toBe(true);
    }
    process.stdout.write(`${measured.map((m) => `${m.name}: ${m.statements} statements for ${N} requests (bound ${m.bound}, status ${m.status})`).join('\n')}\n`);
    expect(measured.filter((m) => m.statements > m.bound)).toEqual([]);
    // The counting itself works: a credential-shaped key is looked up once per request.
    expect(measured.find((m) => m.name.includes('well-formed unknown key'))?.statements).toBe(N);
  });
});
