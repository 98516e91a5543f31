import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandboxAdapter } from '@gengate/adapters';
import type { AcceptedProviderAdapter, Gengate } from '@gengate/core';
import express from 'express';
import type { Logger } from 'pino';
import { createApiReferenceRouter } from '../http/api-reference.js';
import { createGengateHost } from '../embed/create-gengate-host.js';
import type { GengateHostOptions } from '../embed/gengate-host-options.js';
import { graceDeadline } from '../embed/grace-deadline.js';
import type { GengateConfig, ServerRole } from './config.js';
import { openDatabase } from './database.js';
import { createBlobStore } from '../storage/create-blob-store.js';
import { createStandaloneDashboard } from '../dashboard/standalone-dashboard.js';
import { startTracingWith } from '../tracing/start-tracing.js';
import { startIdleMemoryRelease } from '../ops/idle-memory-release.js';
import { onlyOpsPaths } from '../ops/ops-router.js';
import { requestTimer } from '../ops/http-metrics.js';

export interface RunningServer {
  /** Base URL of the API root, e.g. http://127.0.0.1:3000 (the API is under /api/v1). */
  readonly url: string;
  readonly port: number;
  /** The web dashboard's address (`<url>/dashboard/`), or null when DASHBOARD_ENABLED=false. */
  readonly dashboardUrl: string | null;
  readonly gengate: Gengate;
  readonly databaseUrl: string;
  /** What this process does (ROLE / --role): `api`, `worker` (health only over HTTP) or `all`. */
  readonly role: ServerRole;
  /**
   * Stops within SHUTDOWN_GRACE_MS in total: stops taking requests and jobs, lets running requests,
   * generations, callbacks and mails finish until one shared deadline (the grace minus closeReserveMs),
   * cuts off what is left (its jobs are retried by the next process), then closes the queue and the
   * database in the rest of the grace.
   */
  close(): Promise<void>;
}

export interface StartServerOptions {
  readonly logger: Logger;
  /** Adapters to serve; default: the offline sandbox. */
  readonly adapters?: readonly AcceptedProviderAdapter[];
  /** Real providers served after the default sandbox (see providers.ts); ignored when `adapters` is given. */
  readonly extraAdapters?: readonly AcceptedProviderAdapter[];
  /** Secret values (provider keys) kept out of task messages and logs. */
  readonly secrets?: readonly string[];
  /** Overrides config.role (the CLI's --role). */
  readonly role?: ServerRole;
  /** Rebinds ports before anything resolves (createGengateHost's `configure`), e.g. TOKENS.Clock in tests. */
  readonly configure?: GengateHostOptions['configure'];
}

/**
 * The part of SHUTDOWN_GRACE_MS kept for closing the queue and the database, at most a quarter of it:
 * 750 ms with the embedded PostgreSQL (its stop, a checkpoint, took ~0.5 s), 250 ms with DATABASE_URL
 * (the queue and the pool closed in ~50-120 ms when measured).
 */
export function closeReserveMs(graceMs: number, embedded: boolean): number {
  return Math.min(Math.floor(graceMs / 4), embedded ? 750 : 250);
}

function defaultAdapters(config: GengateConfig): AcceptedProviderAdapter[] {
  const latency = config.sandboxLatencyMs;
  const latencyMs = latency === null ? {} : { latencyMs: { chat: latency, image: latency, video: latency } };
  return [createSandboxAdapter({ ...latencyMs, latencyJitterMs: config.sandboxLatencyJitterMs })];
}

/**
 * The standalone host: the embedding facade (createGengateHost) on the configured database, in an
 * Express app of its own with the health endpoints, the API reference page and the dashboard, listening
 * on PORT. Role `api` serves HTTP only, `worker` runs the workers and serves only health, `all` both.
 */
export async function startServer(config: GengateConfig, options: StartServerOptions): Promise<RunningServer> {
  const { logger } = options;
  const role = options.role ?? config.role;
  const serveApi = role !== 'worker';
  const db = await openDatabase(config, logger);
  let baseUrl = config.publicUrl ?? '';
  const p = config.payments;
  let dashboard: ReturnType<typeof createStandaloneDashboard> | null = null;
  const dashboardEnabled = serveApi && config.dashboard.enabled;
  // Traces only when OTEL_TRACES_EXPORTER asks for them: otherwise no OpenTelemetry package is loaded.
  const tracing = await startTracingWith(config.traceExporters);
  if (tracing) logger.info({ exporters: config.traceExporters }, 'OpenTelemetry traces on');
  const host = await createGengateHost({
    tracing,
    database: { pool: db.pool },
    schema: db.schema,
    adapters: options.adapters ?? [...defaultAdapters(config), ...(options.extraAdapters ?? [])],
    logger,
    blobStore: await createBlobStore(config),
    fileDelivery: config.fileDelivery,
    publicUrl: () => baseUrl,
    mountPath: '/api/v1',
    openai: { modelAliases: config.openaiModelAliases },
    settings: config,
    metricsHost: config.host,
    ...(options.secrets ? { secrets: options.secrets } : {}),
    ...(options.configure ? { configure: options.configure } : {}),
    ...(config.smtpUrl ? { smtp: { url: config.smtpUrl, from: config.mailFrom } } : {}),
    ...(p.processor === 'stripe'
      ? {
          stripe: {
            secretKey: p.secretKey,
            webhookSecret: p.webhookSecret,
            apiUrl: p.apiUrl,
            successUrl: () => p.successUrl ?? (dashboardEnabled ? `${baseUrl}/dashboard/billing?checkout=success` : `${baseUrl}/api/v1/billing/balance?checkout=success`),
            cancelUrl: () => p.cancelUrl ?? (dashboardEnabled ? `${baseUrl}/dashboard/billing?checkout=cancelled` : `${baseUrl}/api/v1/billing/balance?checkout=cancelled`),
          },
        }
      : {}),
    // The web dashboard's session (with its CSRF token) is the router's authentication seam.
    ...(dashboardEnabled ? { authenticate: (req) => dashboard?.authenticate(req) ?? Promise.resolve(null), signInHint: 'sign in to the dashboard at /dashboard' } : {}),
  });
  const { gengate } = host;
  try {
    await host.start();
  } catch (err) {
    await db.close();
    throw err;
  }
  if (dashboardEnabled) {
    dashboard = createStandaloneDashboard({
      settings: config.dashboard,
      gengate,
      pool: db.pool,
      schema: db.schema,
      boss: host.boss,
      mailer: host.mailer,
      logger,
      publicUrl: () => baseUrl,
      paymentProcessor: host.paymentProcessor.id,
    });
  }

  const app = express();
  app.disable('x-powered-by');
  // API answers are `Cache-Control: no-store`: an ETag (a SHA-1 of every body) would never be used.
  app.set('etag', false);
  // Every role: request metrics, /healthz, /readyz, and /metrics only behind METRICS_TOKEN when METRICS_PORT does not serve it.
  // In one layer (each Express layer a request walks allocates, about 0.8 KiB): host.ops.httpMetrics's
  // timer, then the ops router for its own paths only.
  const timeRequest = requestTimer(host.ops.metrics);
  const opsPaths = onlyOpsPaths(host.ops.router);
  app.use((req, res, next) => {
    timeRequest(req, res);
    return opsPaths(req, res, next);
  });
  if (serveApi) {
    app.use('/docs', createApiReferenceRouter({ openApiUrl: '/api/v1/openapi.json' }));
    app.use('/api/v1', host.router);
    // The OpenAI-compatible surface: the OpenAI SDKs' baseURL is <origin>/v1.
    if (host.openaiRouter) app.use('/v1', host.openaiRouter);
    if (dashboard) {
      app.use('/dashboard', dashboard.router);
      app.get('/', (_req, res) => res.redirect(302, '/dashboard/'));
    }
  } else {
    app.use((req, res) => {
      res.status(404).json({ code: 404, message: `A worker process serves only health and metrics: no ${req.method} ${req.path}.`, error: { type: 'not_found', param: null } });
    });
  }

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const port = (server.address() as AddressInfo).port;
  if (!config.publicUrl) baseUrl = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${port}`;

  if (role !== 'api') await host.startWorkers();
  // A standalone process gives the heap's spare pages back when it goes idle after a busy period
  // (an embedding application's process is its own to tune: the router does not do this).
  const memoryRelease = config.idleMemoryRelease ? startIdleMemoryRelease({ logger }) : null;
  const metrics = host.metricsUrl()
    ? `on METRICS_PORT${config.ops.metricsToken ? ' (bearer token)' : ''}`
    : config.ops.metricsToken
      ? 'on PORT, bearer token required'
      : 'not served (set METRICS_PORT or METRICS_TOKEN)';
  logger.info({ url: baseUrl, database: db.where, role, worker: role !== 'api', metricsUrl: host.metricsUrl(), metrics }, `gengate listening on ${baseUrl}`);

  let closing: Promise<void> | null = null;
  return {
    url: baseUrl,
    port,
    dashboardUrl: dashboard ? `${baseUrl}/dashboard/` : null,
    gengate,
    databaseUrl: db.url,
    role,
    close() {
      closing ??= (async () => {
        // One deadline for everything, taken now; each part gets what is left of it.
        const grace = graceDeadline(config.shutdownGraceMs, logger);
        // Running requests and jobs are cut off this much before the grace ends, so that stopping the queue
        // and the database (the embedded PostgreSQL's stop takes up to ~0.5 s) fits inside the grace too.
        const drain = graceDeadline(Math.max(0, config.shutdownGraceMs - closeReserveMs(config.shutdownGraceMs, db.embedded)), logger);
        const t0 = performance.now();
        host.ops.markStopping(); // /readyz answers 503 from now on
        memoryRelease?.stop();
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const forceHttp = setTimeout(() => server.closeAllConnections(), drain.remaining());
        await Promise.all([
          drain.bounded(drained, 'http', 0),
          host.stopWorkers({ graceMs: drain.remaining() }),
          drain.bounded(dashboard?.stop(), 'dashboard', 0),
        ]);
        clearTimeout(forceHttp);
        const t1 = performance.now();
        // Then metrics and health, the queue (a draining request may still have needed it) and the database.
        await host.close({ graceMs: grace.remaining() });
        const t2 = performance.now();
        await grace.bounded(db.close(), 'database', 0);
        const ms = (a: number, b: number) => Math.round(b - a);
        // Where the time went (docs/configuration.md, SHUTDOWN_GRACE_MS, quotes measured figures).
        logger.info({ overrunMs: grace.overrunMs(), drainMs: ms(t0, t1), queueMs: ms(t1, t2), databaseMs: ms(t2, performance.now()) }, 'gengate stopped');
      })();
      return closing;
    },
  };
}
