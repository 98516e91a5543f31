import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandboxAdapter } from '@gengate/adapters';
import { createGengate, fetchInput, SendAlertMail, type Gengate, type PaymentProcessor, type ProviderAdapter } from '@gengate/core';
import express from 'express';
import type { Logger } from 'pino';
import { createApiReferenceRouter } from '../http/api-reference.js';
import { createGengateRouter } from '../http/create-router.js';
import { createGuardedFetch } from '../net/guarded-fetch.js';
import { createRequestScopedLogger } from '../http/request-log-scope.js';
import { createPgKeyRateLimiter } from '../limits/create-rate-limiters.js';
import { createBoss } from '../jobs/queues.js';
import { startGenerationWorker } from '../jobs/generation-worker.js';
import { startWorkerNotifications } from '../jobs/worker-notifications.js';
import { PgCallLimiter } from '../limits/pg-call-limiter.js';
import { CallbackRepository } from '../callbacks/callback-repository.js';
import { startAlertMailWorker } from '../jobs/alert-mail-worker.js';
import { startCallbackWorker } from '../jobs/callback-worker.js';
import { createMailer } from '../mail/create-mailer.js';
import { ManualPaymentProcessor } from '../payments/manual-processor.js';
import { createStripeClient, StripePaymentProcessor } from '../payments/stripe-processor.js';
import { createPgStores } from '../postgres/pg-unit-of-work.js';
import { createBlobStore } from '../storage/create-blob-store.js';
import { createResultUrlResolver, createResultUrlVerifier, type ResultUrlVerifier } from '../storage/result-urls.js';
import { defaultMaintenanceSteps, retentionStep, startMaintenanceWorker, taskSweepStep } from '../jobs/maintenance-worker.js';
import { loadServerSecret } from '../postgres/server-secrets.js';
import { STRIPE_CHECKOUT_TTL_SECONDS } from '../payments/stripe-processor.js';
import type { GengateConfig } from './config.js';
import { openDatabase } from './database.js';
import { createOps } from '../ops/start-ops.js';
import { createStandaloneDashboard } from '../dashboard/standalone-dashboard.js';

export interface RunningServer {
  /** Base URL of the API root, e.g. http://127.0.0.1:3000 (the API is under /api/v1). */
  readonly url: string;
  readonly port: number;
  /** The web dashboard's address (`<url>/dashboard/`), or null when DASHBOARD_ENABLED=false. */
  readonly dashboardUrl: string | null;
  readonly gengate: Gengate;
  readonly databaseUrl: string;
  /**
   * Stops within SHUTDOWN_GRACE_MS in total: stops taking requests and jobs, lets running requests,
   * generations, callbacks and mails finish until one shared deadline, cuts off what is left (its jobs are
   * retried by the next process), then closes the queue and the database.
   */
  close(): Promise<void>;
}

export interface StartServerOptions {
  readonly logger: Logger;
  /** Adapters to serve; default: the offline sandbox. */
  readonly adapters?: readonly ProviderAdapter[];
  /** Real providers served after the default sandbox (see providers.ts); ignored when `adapters` is given. */
  readonly extraAdapters?: readonly ProviderAdapter[];
  /** Secret values (provider keys) kept out of task messages and logs. */
  readonly secrets?: readonly string[];
}

function defaultAdapters(config: GengateConfig): ProviderAdapter[] {
  const latency = config.sandboxLatencyMs;
  const latencyMs = latency === null ? {} : { latencyMs: { chat: latency, image: latency, video: latency } };
  return [createSandboxAdapter({ ...latencyMs, latencyJitterMs: config.sandboxLatencyJitterMs })];
}

function paymentsFor(
  config: GengateConfig,
  baseUrl: () => string,
): { processor: PaymentProcessor; stripeWebhook: { stripe: ReturnType<typeof createStripeClient>; webhookSecret: string } | null } {
  const p = config.payments;
  if (p.processor === 'manual') return { processor: new ManualPaymentProcessor(), stripeWebhook: null };
  const stripe = createStripeClient({ secretKey: p.secretKey, apiUrl: p.apiUrl });
  const processor = new StripePaymentProcessor(stripe, {
    get successUrl() {
      return p.successUrl ?? (config.dashboard.enabled ? `${baseUrl()}/dashboard/billing?checkout=success` : `${baseUrl()}/api/v1/billing/balance?checkout=success`);
    },
    get cancelUrl() {
      return p.cancelUrl ?? (config.dashboard.enabled ? `${baseUrl()}/dashboard/billing?checkout=cancelled` : `${baseUrl()}/api/v1/billing/balance?checkout=cancelled`);
    },
  });
  return { processor, stripeWebhook: { stripe, webhookSecret: p.webhookSecret } };
}

/** The standalone host: database, queue, worker, HTTP. */
export async function startServer(config: GengateConfig, options: StartServerOptions): Promise<RunningServer> {
  const { logger } = options;
  const db = await openDatabase(config, logger);
  // A generation job outlives the longest deadline, so the deadline (not pg-boss) ends a slow task.
  const generateExpireSeconds = Math.max(config.deadlineSeconds.chat, config.deadlineSeconds.image, config.deadlineSeconds.video) + 300;
  const boss = await createBoss({
    connectionString: db.url,
    logger,
    callbackRetryDelaySeconds: config.callbacks.retryDelaySeconds,
    callbackTimeoutMs: config.callbacks.timeoutMs,
    generateExpireSeconds,
  });
  // Metrics, health and back-pressure (ops/): telemetry and the submission gate go into the core.
  const ops = createOps({ settings: config.ops, db: db.pool, schema: db.schema, logger });
  const callbacks = new CallbackRepository(db.pool, db.schema);
  const { stores, unitOfWork, taskIntake, taskCompletion } = createPgStores(db.pool, boss, { schema: db.schema });
  let baseUrl = config.publicUrl ?? '';
  const blobStore = await createBlobStore(config);
  // Expiring result URLs are signed with a secret kept in the database, so every process agrees.
  const signing = config.resultUrlTtlSeconds === null ? null : { secret: await loadServerSecret(db.pool, db.schema, 'result-urls'), ttlSeconds: config.resultUrlTtlSeconds };
  const resultUrls = createResultUrlResolver(() => baseUrl, signing);
  const resultUrlVerifier: ResultUrlVerifier | undefined = signing ? createResultUrlVerifier(signing) : undefined;
  const payments = paymentsFor(config, () => baseUrl);
  const adapters = options.adapters ?? [...defaultAdapters(config), ...(options.extraAdapters ?? [])];
  const trustedOrigins = new Set(adapters.flatMap((a) => a.trustedOrigins ?? []));
  const guardedFetch = createGuardedFetch({ allowPrivate: config.fetching.allowPrivate, trustedOrigins: () => trustedOrigins });
  const gengate = createGengate({
    adapters,
    stores,
    unitOfWork,
    taskIntake,
    taskCompletion,
    blobStore,
    resultUrls,
    paymentProcessor: payments.processor,
    logger: createRequestScopedLogger(logger),
    execution: {
      deadlineMs: {
        chat: config.deadlineSeconds.chat * 1000,
        image: config.deadlineSeconds.image * 1000,
        video: config.deadlineSeconds.video * 1000,
      },
      fetch: guardedFetch,
      readInput: fetchInput(guardedFetch, config.fetching.maxInputBytes),
      maxResultBytes: config.fetching.maxResultBytes,
      // Upstreams that can call us back when a job ends are given this URL (polling stays the fallback).
      webhookUrl: (provider, taskId) => (config.publicUrl ? `${config.publicUrl}/api/v1/providers/${encodeURIComponent(provider)}/webhook?task=${taskId}` : null),
      secrets: options.secrets ?? [],
    },
    allowPrivateInputs: config.fetching.allowPrivate,
    markup: config.markup,
    scheduling: config.scheduling,
    callLimiter: new PgCallLimiter(db.pool, db.schema, (id) => config.providerLimits(id)),
    telemetry: ops.metrics,
    submissionGate: ops.gate,
  });

  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger });
  // The web dashboard: its own mount, and its session (with CSRF token) as the /api/v1 router's authentication seam.
  const dashboard = config.dashboard.enabled
    ? createStandaloneDashboard({ settings: config.dashboard, gengate, pool: db.pool, schema: db.schema, boss, mailer, logger, publicUrl: () => baseUrl, paymentProcessor: payments.processor.id })
    : null;

  const app = express();
  app.disable('x-powered-by');
  app.use(ops.httpMetrics);
  app.use(ops.router);
  app.use('/docs', createApiReferenceRouter({ openApiUrl: '/api/v1/openapi.json' }));
  const rateLimiter = createPgKeyRateLimiter(db.pool, db.schema);
  app.use(
    '/api/v1',
    createGengateRouter({
      gengate,
      blobStore,
      fileDelivery: config.fileDelivery,
      logger,
      trustProxy: [...config.trustProxy],
      rateLimiter,
      callbacks,
      ...(resultUrlVerifier ? { resultUrlVerifier } : {}),
      ...(payments.stripeWebhook ? { stripeWebhook: payments.stripeWebhook } : {}),
      ...(dashboard ? { authenticate: dashboard.authenticate } : {}),
    }),
  );
  if (dashboard) {
    app.use('/dashboard', dashboard.router);
    app.get('/', (_req, res) => res.redirect(302, '/dashboard/'));
  }

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const port = (server.address() as AddressInfo).port;
  if (!config.publicUrl) baseUrl = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${port}`;

  const worker = config.runWorker
    ? await startGenerationWorker(boss, gengate, {
        concurrency: config.workerConcurrency,
        checkConcurrency: config.checkConcurrency,
        providerLimits: (id) => config.providerLimits(id),
        providerIds: gengate.registry.adapters().map((a) => a.providerId),
        logger,
      })
    : null;
  // Every process listens: a cancel reaching any API process aborts the upstream call wherever it runs.
  const taskEnded = config.runWorker ? await startWorkerNotifications(db.url, { gengate, boss }, logger) : null;
  const callbackWorker = config.runWorker
    ? await startCallbackWorker(
        boss,
        { callbacks, urls: resultUrls },
        {
          allowPrivate: config.callbacks.allowPrivate,
          timeoutMs: config.callbacks.timeoutMs,
          concurrency: config.callbacks.concurrency,
          perUserConcurrency: config.callbacks.perUserConcurrency,
          logger,
          metrics: ops.metrics,
        },
      )
    : null;
  const mailWorker = config.runWorker ? await startAlertMailWorker(boss, new SendAlertMail(stores.alerts, stores.users, mailer), logger, ops.metrics) : null;
  const maintenanceWorker = config.runWorker
    ? await startMaintenanceWorker(
        boss,
        { db: db.pool, schema: db.schema, blobStore, logger },
        {
          cron: config.maintenanceCron,
          steps: [
            ...defaultMaintenanceSteps({
              callbackAttemptRetentionDays: config.callbacks.attemptRetentionDays,
              lateWriteSeconds: generateExpireSeconds,
              // A Stripe session cannot be paid after its expiry; an hour more covers a late webhook.
              pendingTopupTtlSeconds: { stripe: STRIPE_CHECKOUT_TTL_SECONDS + 3_600, manual: config.manualTopupExpiryHours * 3_600 },
            }),
            taskSweepStep(gengate.sweepTasks),
            ...(config.retentionDays === null ? [] : [retentionStep({ retentionSeconds: config.retentionDays * 86_400 })]),
          ],
        },
      )
    : null;
  const { metricsUrl } = await ops.start(config.host);
  logger.info({ url: baseUrl, database: db.where, worker: worker !== null, metricsUrl }, `gengate listening on ${baseUrl}`);

  let closing: Promise<void> | null = null;
  return {
    url: baseUrl,
    port,
    dashboardUrl: dashboard ? `${baseUrl}/dashboard/` : null,
    gengate,
    databaseUrl: db.url,
    close() {
      closing ??= (async () => {
        // One deadline for everything, taken now; each part gets what is left of it.
        const deadline = Date.now() + config.shutdownGraceMs;
        ops.markStopping(); // /readyz answers 503 from now on
        const remaining = () => Math.max(0, deadline - Date.now());
        /** Waits for p, but not past the deadline (plus a margin for what is cut off there to unwind). */
        const bounded = async (p: Promise<unknown> | undefined, what: string, marginMs = 250): Promise<void> => {
          if (!p) return;
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => {
            timer = setTimeout(() => resolve('late'), remaining() + marginMs);
          });
          const outcome = await Promise.race([p.then(() => 'done' as const, (err: unknown) => (logger.warn({ err, what }, 'shutdown step failed'), 'done' as const)), late]);
          clearTimeout(timer);
          if (outcome === 'late') logger.warn({ what }, 'shutdown step cut off at the grace deadline; its work is retried by the next process');
        };
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const forceHttp = setTimeout(() => server.closeAllConnections(), remaining());
        await Promise.all([
          bounded(drained, 'http'),
          bounded(worker?.stop({ graceMs: remaining() }), 'generation worker'),
          bounded(callbackWorker?.stop({ graceMs: remaining() }), 'callback worker'),
          bounded(mailWorker?.stop({ graceMs: remaining() }), 'mail worker'),
          bounded(maintenanceWorker?.stop({ graceMs: remaining() }), 'maintenance worker'),
          bounded(taskEnded?.stop(), 'worker notifications'),
          bounded(dashboard?.stop(), 'dashboard'),
        ]);
        clearTimeout(forceHttp);
        await bounded(ops.close(), 'metrics and health');
        await bounded(boss.stop({ graceful: true, timeout: Math.max(remaining(), 100) }), 'job queue', 500);
        await bounded(db.close(), 'database', 500);
        logger.info({ overrunMs: Math.max(0, Date.now() - deadline) }, 'gengate stopped');
      })();
      return closing;
    },
  };
}
