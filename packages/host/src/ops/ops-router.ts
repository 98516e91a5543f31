import express, { type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import type { Queryable } from '../postgres/queryable.js';
import { CachedCheck } from './cached-check.js';
import { databaseGauges, DATABASE_GAUGES_MAX_AGE_MS } from './database-gauges.js';
import type { GengateMetrics } from './gengate-metrics.js';
import { requireMetricsToken } from './metrics-token.js';
import { checkReadiness, READINESS_MAX_AGE_MS } from './readiness.js';

export interface OpsRouterOptions {
  readonly db: Queryable;
  /** The gengate tables' schema (quoted where used). */
  readonly schema: string;
  readonly metrics: GengateMetrics;
  readonly logger: Logger;
  readonly queueStarted: () => boolean;
  /** Serve GET /metrics on this router (false: a 404 here; it is served on the metrics port or not at all). */
  readonly serveMetrics: boolean;
  /** When set, GET /metrics needs `Authorization: Bearer <token>` (401 otherwise). */
  readonly metricsToken: string | null;
  /** How old the database gauges and the readiness check may be; defaults 5 s and 1 s. */
  readonly gaugesMaxAgeMs?: number;
  readonly readinessMaxAgeMs?: number;
}

/**
 * GET /healthz (process alive), GET /readyz (503 with what is not ready) and GET /metrics (Prometheus).
 * No API key; none runs a database statement per request: /readyz reuses a check at most a second old,
 * /metrics database gauges one at most five seconds old (docs/deployment.md, "Anonymous requests").
 */
/** The ops router's paths: its routes and onlyOpsPaths' gate are both built from this one list. */
const OPS_PATHS = ['/healthz', '/readyz', '/metrics'] as const;
const [HEALTHZ, READYZ, METRICS] = OPS_PATHS;

export function createOpsRouter(o: OpsRouterOptions): Router {
  const router = express.Router();
  const readiness = new CachedCheck(() => checkReadiness(o.db, { schema: o.schema }), o.readinessMaxAgeMs ?? READINESS_MAX_AGE_MS);
  router.get(HEALTHZ, (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get(READYZ, async (_req, res) => {
    const db = await readiness.get();
    // The queue's state is read live: /readyz answers 503 from the moment shutdown begins.
    const queue = o.queueStarted() ? 'ok' : 'not started or stopping';
    const ready = db.ready && queue === 'ok';
    res.setHeader('Cache-Control', 'no-store');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: { ...db.checks, queue } });
  });
  if (o.serveMetrics) {
    const gauges = databaseGauges(o.db, o.metrics, o.schema, o.gaugesMaxAgeMs ?? DATABASE_GAUGES_MAX_AGE_MS);
    const guard = o.metricsToken === null ? [] : [requireMetricsToken(o.metricsToken)];
    router.get(METRICS, ...guard, async (_req, res) => {
      try {
        await gauges.get();
      } catch (err) {
        // The process's own counters are still worth serving; the database gauges keep their last values.
        o.logger.warn({ err }, 'metrics: database gauges not refreshed');
      }
      res.setHeader('Cache-Control', 'no-store');
      res.type(o.metrics.registry.contentType).send(await o.metrics.registry.metrics());
    });
  }
  return router;
}

/** The ops router's paths as Express matches them: any case, an optional trailing slash, then a query or nothing. */
const OPS_PATH = new RegExp(`^(?:${OPS_PATHS.join('|')})/?(?:[?#]|$)`, 'i');

/**
 * The ops router mounted at an app's root, entered only for its own paths: every other request (each API
 * call) passes it by with one regular-expression test, instead of entering the router and matching its
 * routes, which allocated about 1 KiB per poll (measured: 35.5 -> 34.5 KiB per poll).
 */
export function onlyOpsPaths(router: RequestHandler): RequestHandler {
  return (req, res, next) => (OPS_PATH.test(req.url) ? router(req, res, next) : next());
}
