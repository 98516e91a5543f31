import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { RequestHandler } from 'express';
import type { Queryable } from '../postgres/queryable.js';
import { GengateMetrics } from './gengate-metrics.js';
import { createOpsRouter, onlyOpsPaths } from './ops-router.js';
import { QueueDepthGate } from './queue-gate.js';
import { LATEST_MIGRATION } from './readiness.js';

/** A database that answers the readiness and gauge queries with fixed rows, or fails; `statements` counts the queries. */
function fakeDb(answer: { version?: number; fail?: string }): Queryable & { statements: number } {
  const db = {
    statements: 0,
    query: async <R extends object>(sql: string) => {
      db.statements++;
      if (answer.fail) throw new Error(answer.fail);
      if (sql.includes('gengate_migrations')) return { rows: [{ version: answer.version ?? LATEST_MIGRATION }] as unknown as R[], rowCount: 1 };
      return { rows: [{ holds: 3, held_micro: '1500000', running: 2, queued: 1 }] as unknown as R[], rowCount: 1 };
    },
  };
  return db;
}

const TOKEN = 'metrics-token-0123456789abcdef';

/** `metrics`: null = not served here, { token: null } = open (the private metrics port), { token } = bearer required. */
function app(db: Queryable, queueStarted = true, metrics: { token: string | null } | null = { token: null }) {
  const a = express();
  a.use(
    createOpsRouter({
      db,
      schema: 'public',
      metrics: new GengateMetrics(),
      logger: pino({ level: 'silent' }),
      queueStarted: () => queueStarted,
      serveMetrics: metrics !== null,
      metricsToken: metrics?.token ?? null,
      // Long enough that no cached value expires during a test, whatever the machine's load.
      gaugesMaxAgeMs: 60_000,
      readinessMaxAgeMs: 60_000,
    }),
  );
  return a;
}

describe('ops router', () => {
  it('is ready when the database answers at the latest migration or a later one and the queue runs', async () => {
    for (const version of [LATEST_MIGRATION, LATEST_MIGRATION + 1]) {
      const res = await request(app(fakeDb({ version }))).get('/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', queue: 'ok' } });
    }
  });

  it('answers 503 naming what is not ready: an unreachable database, missing migrations, a stopped queue', async () => {
    const down = await request(app(fakeDb({ fail: 'connection refused' }))).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      status: 'not_ready',
      checks: { database: 'unreachable: connection refused', migrations: 'unknown (database unreachable)', queue: 'ok' },
    });
    const behind = await request(app(fakeDb({ version: LATEST_MIGRATION - 1 }))).get('/readyz');
    expect(behind.status).toBe(503);
    expect(behind.body.checks.migrations).toBe(`database at migration ${LATEST_MIGRATION - 1}, this process needs ${LATEST_MIGRATION}`);
    const stopping = await request(app(fakeDb({}), false)).get('/readyz');
    expect(stopping.status).toBe(503);
    expect(stopping.body.checks).toEqual({ database: 'ok', migrations: 'ok', queue: 'not started or stopping' });
    expect((await request(app(fakeDb({ fail: 'down' }))).get('/healthz')).body).toEqual({ status: 'ok' });
  });

  it('serves the metrics with the database gauges read at scrape time, and still serves them when the database is down', async () => {
    const res = await request(app(fakeDb({}))).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toContain('gengate_holds_outstanding 3');
    expect(res.text).toContain('gengate_holds_outstanding_micro 1500000');
    expect(res.text).toContain('gengate_tasks_in_flight{state="running"} 2');
    const down = await request(app(fakeDb({ fail: 'down' }))).get('/metrics');
    expect(down.status).toBe(200);
    expect(down.text).toContain('gengate_tasks_submitted_total');
    expect((await request(app(fakeDb({}), true, null)).get('/metrics')).status).toBe(404);
  });

  it('asks for the bearer token when one is set: 401 without it or with a wrong one, 200 with it', async () => {
    const a = app(fakeDb({}), true, { token: TOKEN });
    const none = await request(a).get('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(none.text).not.toContain('gengate_');
    expect((await request(a).get('/metrics').set('Authorization', `Bearer ${TOKEN}x`)).status).toBe(401);
    expect((await request(a).get('/metrics').set('Authorization', 'Bearer short')).status).toBe(401);
    const ok = await request(a).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('gengate_holds_outstanding 3');
  });

  it('runs the database gauge query at most once per refresh interval however often /metrics is scraped (concurrent scrapes share it)', async () => {
    const db = fakeDb({});
    const a = app(db);
    await Promise.all(Array.from({ length: 20 }, () => request(a).get('/metrics').expect(200)));
    for (let i = 0; i < 20; i++) await request(a).get('/metrics').expect(200);
    expect(db.statements).toBe(1);
  });

  it('answers /readyz from a cached database check (default at most 1 s old): 50 probes cost one database statement, and the queue state is live', async () => {
    const db = fakeDb({});
    const a = app(db);
    await Promise.all(Array.from({ length: 25 }, () => request(a).get('/readyz').expect(200)));
    for (let i = 0; i < 25; i++) await request(a).get('/readyz').expect(200);
    expect(db.statements).toBe(1);
    let started = true;
    const b = express().use(
      createOpsRouter({ db, schema: 'public', metrics: new GengateMetrics(), logger: pino({ level: 'silent' }), queueStarted: () => started, serveMetrics: false, metricsToken: null }),
    );
    expect((await request(b).get('/readyz')).status).toBe(200);
    started = false; // shutdown begins: the next probe says so at once, whatever the cache
    expect((await request(b).get('/readyz')).body.checks.queue).toBe('not started or stopping');
  });
});

describe('onlyOpsPaths', () => {
  it('enters the ops router for its paths as Express matches them, and passes every other request by without entering it', async () => {
    const ops = express.Router();
    ops.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
    let entered = 0;
    const counted: RequestHandler = (req, res, next) => {
      entered++;
      ops(req, res, next);
    };
    const a = express();
    a.use(onlyOpsPaths(counted));
    a.use((req, res) => res.json({ passed: req.url }));
    for (const path of ['/healthz', '/healthz/', '/HEALTHZ', '/healthz?probe=1']) {
      expect((await request(a).get(path)).body).toEqual({ status: 'ok' });
    }
    expect(entered).toBe(4);
    for (const path of ['/api/v1/run/tasks/1', '/healthzz', '/metrics-old', '/docs/healthz']) {
      expect((await request(a).get(path)).body).toEqual({ passed: path });
    }
    expect(entered).toBe(4);
    // /readyz and /metrics enter it too; a path it has no route for falls through to what follows.
    expect((await request(a).get('/readyz')).body).toEqual({ passed: '/readyz' });
    expect(entered).toBe(5);
  });
});

describe('queue depth gate', () => {
  it('closes at the limit with Retry-After and the counts, and opens below it', () => {
    let waiting = 99;
    const gate = new QueueDepthGate({ get: () => ({ waiting, ready: waiting, oldestReadySeconds: 0 }) }, 'gengate-generate', 100);
    expect(gate.state()).toEqual({ open: true });
    waiting = 100;
    expect(gate.state()).toEqual({ open: false, waiting: 100, limit: 100, retryAfterSeconds: 5 });
  });
});
