import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { BOSS_SCHEMA, QUEUES } from '../postgres/boss-queues.js';
import type { Queryable } from '../postgres/queryable.js';
import { GengateMetrics } from './gengate-metrics.js';
import { httpMetrics } from './http-metrics.js';
import { createOpsRouter } from './ops-router.js';
import { QueueDepthGate } from './queue-gate.js';
import { QueueSampler } from './queue-sampler.js';

export interface OpsSettings {
  /**
   * Serve /metrics, /healthz and /readyz on this port as well (bind it to a private network). Null: no
   * metrics port; /metrics is then served on the main router only when `metricsToken` is set.
   */
  readonly metricsPort: number | null;
  /**
   * A bearer token /metrics asks for (`Authorization: Bearer <token>`), wherever it is served. Null: on the
   * metrics port /metrics is open, and the main router does not serve it at all (404).
   */
  readonly metricsToken: string | null;
  /** Waiting generation jobs past which submissions are refused with 503 overloaded. */
  readonly maxQueuedJobs: number;
  /** How often each process samples the queue depth (back-pressure and queue gauges). */
  readonly queueSampleIntervalMs: number;
}

export interface Ops {
  readonly metrics: GengateMetrics;
  readonly gate: QueueDepthGate;
  readonly sampler: QueueSampler;
  /** Mount first on the main app: times every request. */
  readonly httpMetrics: RequestHandler;
  /** /healthz, /readyz, and /metrics when there is no metrics port and a token is set: mount on the main app. */
  readonly router: Router;
  /** Starts sampling the queues, and listens on the metrics port when one is set. Returns the metrics URL. */
  start(host: string): Promise<{ metricsUrl: string | null }>;
  /** /readyz answers 503 from now on (shutdown has begun). */
  markStopping(): void;
  close(): Promise<void>;
}

const SAMPLED_QUEUES = [QUEUES.generate, QUEUES.check, QUEUES.callback, QUEUES.alertMail];

/** Metrics, health and back-pressure of one process: one call from start-server builds them. */
export function createOps(o: { settings: OpsSettings; db: Queryable; logger: Logger; schema: string; bossSchema?: string }): Ops {
  const schema = o.schema;
  const metrics = new GengateMetrics();
  metrics.queueLimit.set(o.settings.maxQueuedJobs);
  const sampler = new QueueSampler(o.db, {
    bossSchema: o.bossSchema ?? BOSS_SCHEMA,
    queues: SAMPLED_QUEUES,
    counted: QUEUES.generate,
    countCap: o.settings.maxQueuedJobs,
    intervalMs: o.settings.queueSampleIntervalMs,
    logger: o.logger,
  });
  sampler.onSample((samples) => {
    for (const [queue, s] of samples) {
      metrics.queueWaiting.set({ queue }, s.waiting);
      metrics.queueReady.set({ queue }, s.ready);
      metrics.queueOldest.set({ queue }, s.oldestReadySeconds);
    }
  });
  const gate = new QueueDepthGate(sampler, QUEUES.generate, o.settings.maxQueuedJobs);
  let stopping = false;
  let server: Server | null = null;
  const router = (serveMetrics: boolean) =>
    createOpsRouter({ db: o.db, schema, metrics, logger: o.logger, queueStarted: () => !stopping, serveMetrics, metricsToken: o.settings.metricsToken });
  return {
    metrics,
    gate,
    sampler,
    httpMetrics: httpMetrics(metrics),
    // Never open on the main (public) port: there only behind the token, and only without a metrics port.
    router: router(o.settings.metricsPort === null && o.settings.metricsToken !== null),
    async start(host) {
      await sampler.start();
      if (o.settings.metricsPort === null) return { metricsUrl: null };
      const opsApp = express();
      opsApp.disable('x-powered-by');
      opsApp.use(router(true));
      server = await new Promise<Server>((resolve, reject) => {
        const s = opsApp.listen(o.settings.metricsPort ?? 0, host, (err?: Error) => (err ? reject(err) : resolve(s)));
      });
      const port = (server.address() as AddressInfo).port;
      return { metricsUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics` };
    },
    markStopping() {
      stopping = true;
    },
    async close() {
      stopping = true;
      sampler.stop();
      const s = server;
      if (s) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}
