import { join } from 'node:path';
import { createGengate, GatewayError, resolveUseCases, type BlobStore, type Gengate, type Mailer, type PaymentProcessor, type ResultUrlResolver } from '@gengate/core';
import { fetchInput } from '@gengate/core/internal';
import { Router, type RequestHandler } from 'express';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import pino, { type Logger } from 'pino';
import { CallbackRepository } from '../callbacks/callback-repository.js';
import { createGengateRouter } from '../http/create-router.js';
import { createOpenAIRouter } from '../http/openai/create-openai-router.js';
import { createRequestScopedLogger } from '../http/request-log-scope.js';
import { newBoss, startBoss } from '../postgres/boss-queues.js';
import { createOps, type Ops } from '../ops/start-ops.js';
import { createPgKeyRateLimiter } from '../limits/create-rate-limiters.js';
import { PgCallLimiter } from '../limits/pg-call-limiter.js';
import { createMailer } from '../mail/create-mailer.js';
import { guardedFetchFor } from './guarded-fetch-for.js';
import { ManualPaymentProcessor } from '../payments/manual-processor.js';
import { connectionSettingsOf, type ConnectionSettings } from '../postgres/connection-settings.js';
import { runMigrations } from '../postgres/migrate.js';
import { checkSchemaName, DEFAULT_SCHEMA } from '../postgres/schema.js';
import { createPgStores } from '../postgres/pg-unit-of-work.js';
import { loadServerSecret } from '../postgres/server-secrets.js';
import { LocalBlobStore } from '../storage/local-blob-store.js';
import { createResultUrlResolver, createResultUrlVerifier, type ResultUrlVerifier } from '../storage/result-urls.js';
import type { GengateHostOptions, HostWorkerSelection } from './gengate-host-options.js';
import { ensureGengateUser, type EnsureUserInput } from './ensure-user.js';
import { graceDeadline } from './grace-deadline.js';
import { resolveHostSettings, type GengateHostSettings } from './host-settings.js';
import { loadStripe } from './load-stripe.js';
import { startHostWorkers, type HostWorkers } from './start-host-workers.js';

/** gengate inside your app: everything createGengateHost built, and what starts and stops it. */
export interface GengateHost {
  /** The use cases (submitRun, getTask, admin, billing...) and the container they were resolved from. */
  readonly gengate: Gengate;
  /** The whole API as one Express router: `app.use(mountPath, host.router)`. */
  readonly router: Router;
  /** With the `openai` option: the OpenAI-compatible surface, `app.use('/v1', host.openaiRouter)`; null otherwise. */
  readonly openaiRouter: Router | null;
  /** The pool gengate's stores use (yours when you gave one). */
  readonly pool: pg.Pool;
  /** The PostgreSQL schema of gengate's tables. */
  readonly schema: string;
  /** The job queue (pg-boss, schema `pgboss`). */
  readonly boss: PgBoss;
  readonly blobStore: BlobStore;
  readonly mailer: Mailer;
  readonly paymentProcessor: PaymentProcessor;
  readonly settings: GengateHostSettings;
  /**
   * Metrics (prom-client), health and back-pressure: mount `ops.httpMetrics` first on your app to time
   * requests, and `ops.router` for `/healthz`, `/readyz` and `/metrics` (unless settings.ops.metricsPort
   * serves them on a port of their own, which start() opens).
   */
  readonly ops: Ops;
  /** The URL of /metrics on its own port once start() opened it; null otherwise. */
  metricsUrl(): string | null;
  /** Where the router is mounted under the public URL, e.g. `/api/v1`. */
  readonly mountPath: string;
  /** The router's absolute URL: the public URL plus the mount path. */
  apiUrl(): string;
  /**
   * The gengate user for one of your users (by e-mail), created on first use with `credits` and no API
   * key; return its id from your `authenticate` to act as it.
   */
  ensureUser(input: EnsureUserInput): Promise<{ userId: string; created: boolean }>;
  /**
   * Applies gengate's pending SQL migrations in its schema (idempotent; safe from several processes at
   * once); `adopted` when the tables of an older gengate were moved there from `public`.
   */
  migrate(): Promise<{ applied: readonly number[]; adopted: boolean }>;
  /**
   * Starts the job queue (pg-boss creates or migrates its own schema, gengate's queues are created) and
   * loads the result-URL signing secret. Needed before the router serves; it also runs on the router's
   * first request. Idempotent. Requires migrate() to have run (here or in another process).
   */
  start(): Promise<void>;
  /** start(), then the workers: generation (with the task-ended listener), callbacks, mail, maintenance. */
  startWorkers(which?: HostWorkerSelection): Promise<void>;
  /** Stops the workers (not the queue): running jobs get graceMs (default settings.shutdownGraceMs) to finish. */
  stopWorkers(opts?: { graceMs?: number }): Promise<void>;
  /**
   * Stops what was started within graceMs (default settings.shutdownGraceMs) in total: the workers get
   * what is left of the grace to finish running jobs (what is cut off is retried by the next process),
   * then the queue, then the pool when gengate opened it. Stop your HTTP server first (or at the same
   * time, and call close() once its requests are done): a submission needs the queue.
   */
  close(opts?: { graceMs?: number }): Promise<void>;
}

function readUrl(u: GengateHostOptions['publicUrl']): () => string {
  if (typeof u === 'function') return () => u().replace(/\/+$/, '');
  const fixed = (u ?? '').replace(/\/+$/, '');
  return () => fixed;
}

function normalizeMountPath(path: string | undefined): string {
  const p = (path ?? '/api/v1').replace(/\/+$/, '');
  if (p !== '' && !p.startsWith('/')) throw new Error(`mountPath must start with "/": ${path}`);
  return p;
}

/**
 * gengate in one call, for an Express app of your own: `const host = await createGengateHost({ database,
 * adapters })`, `await host.migrate()`, `await host.startWorkers()` (in the processes that run jobs),
 * `app.use('/api/v1', host.router)`, and `await host.close()` on shutdown. Nothing touches the database
 * until migrate() or start(); optional integrations (Stripe, SMTP) are imported only when configured.
 */
export async function createGengateHost(options: GengateHostOptions): Promise<GengateHost> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const settings = resolveHostSettings(options.settings);
  const ownPool = 'url' in options.database;
  const pool = 'url' in options.database ? new pg.Pool({ connectionString: options.database.url, max: options.database.poolMax ?? 20, pipeline: true }) : options.database.pool;
  if (ownPool) pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client error'));
  const connection: ConnectionSettings = 'url' in options.database ? options.database.url : connectionSettingsOf(pool);
  const mountPath = normalizeMountPath(options.mountPath);
  const schema = checkSchemaName(options.schema ?? DEFAULT_SCHEMA);
  const publicUrl = readUrl(options.publicUrl);
  const apiUrl = () => `${publicUrl()}${mountPath}`;

  // A generation job outlives the longest deadline, so the deadline (not pg-boss) ends a slow task.
  const generateExpireSeconds = Math.max(settings.deadlineSeconds.chat, settings.deadlineSeconds.image, settings.deadlineSeconds.video) + 300;
  const bossOptions = {
    connectionString: connection,
    logger,
    callbackRetryDelaySeconds: settings.callbacks.retryDelaySeconds,
    callbackTimeoutMs: settings.callbacks.timeoutMs,
    generateExpireSeconds,
  };
  const boss = newBoss(bossOptions);
  const { stores, unitOfWork, taskIntake, taskCompletion } = createPgStores(pool, boss, { schema, ...(options.replaceStores ? { replace: options.replaceStores } : {}) });
  const callbacks = new CallbackRepository(pool, schema);
  const blobStore = options.blobStore ?? new LocalBlobStore(options.filesDir ?? join(process.cwd(), '.gengate', 'files'));

  // Result URLs are signed (fileAccess `signed`, the default) with a secret kept in the database (loaded
  // by start()), so every process agrees; the expiry reads the container's clock (rebind TOKENS.Clock to move it).
  const signed = settings.fileAccess === 'signed';
  const nowMs = (): number => useCases.clock.now().getTime();
  let signedUrls: ResultUrlResolver | null = null;
  let verifier: ResultUrlVerifier | null = null;
  const unsignedUrls = createResultUrlResolver(publicUrl, null, mountPath);
  // Before start() a signed host has no secret yet: its URLs would then be plain, and refused (403).
  const resultUrls: ResultUrlResolver = { urlFor: (key) => (signedUrls ?? unsignedUrls).urlFor(key) };

  const stripe = options.stripe ? await loadStripe(options.stripe, apiUrl) : null;
  const paymentProcessor = stripe?.processor ?? options.paymentProcessor ?? new ManualPaymentProcessor();
  const mailer = options.mailer ?? createMailer({ smtpUrl: options.smtp?.url ?? null, from: options.smtp?.from ?? 'gengate <no-reply@localhost>', logger });
  const guardedFetch = guardedFetchFor(options.adapters, settings.fetching.allowPrivate);
  // Metrics, health and back-pressure: telemetry and the submission gate go into the core.
  const ops = createOps({ settings: settings.ops, db: pool, schema, logger });
  let metricsUrl: string | null = null;

  const gengate = createGengate({
    adapters: options.adapters,
    stores,
    unitOfWork,
    taskIntake,
    taskCompletion,
    blobStore,
    resultUrls,
    paymentProcessor,
    logger: createRequestScopedLogger(logger),
    execution: {
      deadlineMs: {
        chat: settings.deadlineSeconds.chat * 1000,
        image: settings.deadlineSeconds.image * 1000,
        video: settings.deadlineSeconds.video * 1000,
      },
      fetch: guardedFetch,
      readInput: fetchInput(guardedFetch, settings.fetching.maxInputBytes),
      maxResultBytes: settings.fetching.maxResultBytes,
      // Upstreams that can call us back when a job ends are given this URL (polling stays the fallback).
      webhookUrl: (provider, taskId) => (publicUrl() ? `${apiUrl()}/providers/${encodeURIComponent(provider)}/webhook?task=${taskId}` : null),
      secrets: options.secrets ?? [],
    },
    allowPrivateInputs: settings.fetching.allowPrivate,
    markup: settings.markup,
    scheduling: settings.scheduling,
    callLimiter: new PgCallLimiter(pool, schema, (id) => settings.providerLimits(id)),
    telemetry: ops.metrics,
    submissionGate: ops.gate,
  }, options.configure ? { configure: options.configure } : {});
  // The composition root: every use case and port resolved once, now that the embedder's rebindings are in;
  // the routers and workers receive them and never look anything up in the container.
  const useCases = resolveUseCases(gengate);

  let starting: Promise<void> | null = null;
  const start = (): Promise<void> => {
    starting ??= (async () => {
      if (signed) {
        const signing = { secret: await loadServerSecret(pool, schema, 'result-urls'), ttlSeconds: settings.resultUrlTtlSeconds, now: nowMs };
        signedUrls = createResultUrlResolver(publicUrl, signing, mountPath);
        verifier = createResultUrlVerifier(signing);
      }
      await startBoss(boss, bossOptions);
      ({ metricsUrl } = await ops.start(options.metricsHost ?? '127.0.0.1'));
    })().catch((err: unknown) => {
      starting = null; // a later call tries again (e.g. after migrate())
      throw err;
    });
    return starting;
  };

  const api = createGengateRouter({
    gengate: useCases,
    blobStore,
    logger,
    trustProxy: [...settings.trustProxy],
    rateLimiter: options.rateLimiter ?? createPgKeyRateLimiter(pool, schema),
    callbacks,
    // Read per request: the secret is loaded by start(), which the router runs before any route.
    ...(signed ? { resultUrlVerifier: { verify: (key, query) => verifier?.verify(key, query) ?? { ok: false, reason: 'invalid' } } } : {}),
    ...(settings.fileAccess === 'session' ? { fileAccess: 'owner' as const } : {}),
    ...(options.authenticateFiles ? { authenticateFiles: options.authenticateFiles } : {}),
    ...(options.signInHint !== undefined ? { signInHint: options.signInHint } : {}),
    now: nowMs,
    ...(stripe ? { stripeWebhook: stripe.webhook } : {}),
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.fileDelivery ? { fileDelivery: options.fileDelivery } : {}),
  });
  const router = Router();
  const ready: RequestHandler = async (_req, res, next) => {
    try {
      await start();
    } catch (err) {
      logger.error({ err }, 'gengate could not start its job queue (is the database reachable and migrated?)');
      const error = new GatewayError('service_unavailable', 'The generation service is not ready; try again shortly.');
      res.status(error.status).json(error.toBody());
      return;
    }
    next();
  };
  router.use(ready);
  router.use(api);
  const openai = options.openai === undefined || options.openai === false ? null : options.openai === true ? {} : options.openai;
  const openaiRouter = openai
    ? Router()
        .use(ready)
        .use(
          createOpenAIRouter({
            gengate: useCases,
            blobStore,
            logger,
            trustProxy: [...settings.trustProxy],
            rateLimiter: options.rateLimiter ?? createPgKeyRateLimiter(pool, schema),
            ...openai,
          }),
        )
    : null;

  let workers: HostWorkers | null = null;
  let closing: Promise<void> | null = null;
  return {
    gengate,
    router,
    openaiRouter,
    pool,
    schema,
    boss,
    blobStore,
    mailer,
    paymentProcessor,
    settings,
    ops,
    metricsUrl: () => metricsUrl,
    mountPath,
    apiUrl,
    ensureUser: (input) => ensureGengateUser(useCases, input),
    async migrate() {
      const { applied, adopted } = await runMigrations(pool, schema);
      if (adopted) logger.warn({ schema }, "gengate's tables moved from schema public into their own schema");
      return { applied, adopted };
    },
    start,
    async startWorkers(which = {}) {
      if (workers) throw new Error('startWorkers() was already called');
      await start();
      workers = await startHostWorkers(
        { boss, gengate: useCases, pool, schema, connection, blobStore, callbacks, resultUrls, mailer, logger, settings, generateExpireSeconds, metrics: ops.metrics, apiUrl },
        which,
      );
    },
    async stopWorkers(opts = {}) {
      await workers?.stop(graceDeadline(opts.graceMs ?? settings.shutdownGraceMs, logger));
    },
    close(opts = {}) {
      closing ??= (async () => {
        const grace = graceDeadline(opts.graceMs ?? settings.shutdownGraceMs, logger);
        ops.markStopping(); // /readyz answers 503 from now on
        await workers?.stop(grace);
        await grace.bounded(ops.close(), 'metrics and health');
        if (starting) await grace.bounded(boss.stop({ graceful: true, timeout: Math.max(grace.remaining(), 100) }), 'job queue', 500);
        if (ownPool) await grace.bounded(pool.end(), 'database', 500);
      })();
      return closing;
    },
  };
}
