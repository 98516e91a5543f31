import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { Queryable } from '../postgres/queryable.js';
import { refreshDatabaseGauges } from './database-gauges.js';
import type { GengateMetrics } from './gengate-metrics.js';
import { checkReadiness } from './readiness.js';

export interface OpsRouterOptions {
  readonly db: Queryable;
  /** The gengate tables' schema (quoted where used). */
  readonly schema: string;
  readonly metrics: GengateMetrics;
  readonly logger: Logger;
  readonly queueStarted: () => boolean;
  /** Serve GET /metrics on this router (false: it is served on the separate metrics port). */
  readonly serveMetrics: boolean;
}

/** GET /healthz (process alive), GET /readyz (503 with what is not ready) and GET /metrics (Prometheus); no API key. */
export function createOpsRouter(o: OpsRouterOptions): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const report = await checkReadiness(o.db, { schema: o.schema, queueStarted: o.queueStarted });
    res.status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
  });
  if (o.serveMetrics) {
    router.get('/metrics', async (_req, res) => {
      try {
        await refreshDatabaseGauges(o.db, o.metrics, o.schema);
      } catch (err) {
        // The process's own counters are still worth serving; the database gauges keep their last values.
        o.logger.warn({ err }, 'metrics: database gauges not refreshed');
      }
      res.type(o.metrics.registry.contentType).send(await o.metrics.registry.metrics());
    });
  }
  return router;
}
