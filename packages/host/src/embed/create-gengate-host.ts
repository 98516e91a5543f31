import { join } from 'node:path';
import { routeFamiliesFor } from '@gengate/adapters';
import { coreModule, coreSettingsModule, GatewayError, resolveGengate, TOKENS, type AcceptedProviderAdapter, type BlobStore, type Gengate, type Mailer, type PaymentProcessor, type RoutedModelDeclaration } from '@gengate/core';
import { Router, type RequestHandler, type Response } from 'express';
import { Container } from 'inversify';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import pino from 'pino';
import type { Ops } from '../ops/start-ops.js';
import { startBoss } from '../postgres/boss-queues.js';
import { connectionSettingsOf, type ConnectionSettings } from '../postgres/connection-settings.js';
import { runMigrations } from '../postgres/migrate.js';
import { PgRouteHealth } from '../postgres/pg-route-health.js';
import { postgresStoresModule } from '../postgres/postgres-stores-module.js';
import { checkSchemaName, DEFAULT_SCHEMA } from '../postgres/schema.js';
import type { GengateHostOptions, HostWorkerSelection } from './gengate-host-options.js';
import { ensureGengateUser, type EnsureUserInput } from './ensure-user.js';
import { graceDeadline } from './grace-deadline.js';
import { hostModule } from './host-module.js';
import { resolveHostSettings, type GengateHostSettings } from './host-settings.js';
import { HOST_TOKENS } from './host-tokens.js';
import { setFrontGate, type FrontGate } from '../http/front-gate.js';
import { loadStripe } from './load-stripe.js';
import type { HostWorkers } from './start-host-workers.js';

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
  const stripe = options.stripe ? await loadStripe(options.stripe, apiUrl) : null;
  const paymentProcessorGiven = stripe?.processor ?? options.paymentProcessor;
  const tracing = options.tracing ?? null;
  const openai = options.openai === undefined || options.openai === false ? null : options.openai === true ? {} : options.openai;

  // The container: the PostgreSQL stores, the host's parts, core's settings and use cases (see each module
  // for its bindings and their lifetimes); then the embedder's rebindings; then everything resolved once.
  const container = new Container();
  container.load(
    postgresStoresModule({ pool, schema, ...(options.replaceStores ? { replace: options.replaceStores } : {}), ...(options.keyCache ? { keyCache: options.keyCache } : {}) }),
    hostModule({
      logger,
      settings,
      urls: { publicUrl, mountPath, apiUrl },
      connection,
      adapters: tracing ? tracing.adapters(options.adapters) : options.adapters,
      secrets: options.secrets ?? [],
      filesDir: options.filesDir ?? join(process.cwd(), '.gengate', 'files'),
      smtp: { url: options.smtp?.url ?? null, from: options.smtp?.from ?? 'gengate <no-reply@localhost>' },
      router: {
        ...(options.authenticate ? { authenticate: options.authenticate } : {}),
        ...(options.authenticateFiles ? { authenticateFiles: options.authenticateFiles } : {}),
        ...(options.signInHint !== undefined ? { signInHint: options.signInHint } : {}),
        ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
        ...(options.fileDelivery ? { fileDelivery: options.fileDelivery } : {}),
      },
      openai,
      stripeWebhook: stripe?.webhook ?? null,
      given: {
        ...(options.blobStore ? { blobStore: options.blobStore } : {}),
        ...(options.mailer ? { mailer: options.mailer } : {}),
        ...(paymentProcessorGiven ? { paymentProcessor: paymentProcessorGiven } : {}),
        ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
      },
    }),
    coreSettingsModule({
      scheduling: settings.scheduling,
      markup: settings.markup,
      allowPrivateInputs: settings.fetching.allowPrivate,
      routedModels: servedRoutedModels(options.adapters, settings.routedModels ?? []),
    }),
    coreModule,
  );
  options.configure?.(container);
  if (tracing) {
    // Spans as decorators around the ports (whatever the embedder bound to them): the submission, the
    // settlement, the result files. The adapters' upstream calls were wrapped above.
    container.onActivation(TOKENS.TaskIntake, (_ctx, intake) => tracing.intake(intake));
    container.onActivation(TOKENS.TaskCompletion, (_ctx, completion) => tracing.completion(completion));
    container.onActivation(TOKENS.BlobStore, (_ctx, store) => tracing.blobStore(store));
  }

  // The composition root's one resolve, now that the embedder's rebindings are in: the routers and workers
  // received their use cases and ports here, and nothing is looked up in the container after this.
  const gengate = resolveGengate(container);
  const useCases = container.get(HOST_TOKENS.UseCases);
  const boss = container.get(HOST_TOKENS.Boss);
  if (!boss) throw new Error('createGengateHost needs a job queue: HOST_TOKENS.Boss resolved to null');
  const bossOptions = container.get(HOST_TOKENS.BossOptions);
  const blobStore = container.get(TOKENS.BlobStore);
  const mailer = container.get(HOST_TOKENS.Mailer);
  const paymentProcessor = container.get(TOKENS.PaymentProcessor);
  const resultUrls = container.get(HOST_TOKENS.ResultUrlSigning);
  const ops: Ops = container.get(HOST_TOKENS.Ops);
  const api = container.get(HOST_TOKENS.ApiRouter);
  const openaiApi = container.get(HOST_TOKENS.OpenAIRouter);
  const workerStarter = container.get(HOST_TOKENS.Workers);
  // The shared breakers' timers are stopped (and their last outcomes written) by close(); /metrics reads
  // the breakers bound to TOKENS.RouteHealth, whatever the embedder rebound there.
  const sharedRouteHealth = container.get(PgRouteHealth);
  ops.metrics.watchRouteHealth(() => gengate.routeHealth.states());
  let metricsUrl: string | null = null;

  let starting: Promise<void> | null = null;
  /** Set once start() has succeeded: from then on a request passes `ready` without waiting on a promise. */
  let started = false;
  const start = (): Promise<void> => {
    starting ??= (async () => {
      // Result URLs are signed (fileAccess `signed`, the default) with a secret kept in the database, so every process agrees.
      await resultUrls.load();
      await startBoss(boss, bossOptions);
      ({ metricsUrl } = await ops.start(options.metricsHost ?? '127.0.0.1'));
      started = true;
    })().catch((err: unknown) => {
      starting = null; // a later call tries again (e.g. after migrate())
      throw err;
    });
    return starting;
  };

  /** Starts the host if it has not: true once started, false when it could not (the request was answered with a 503). */
  const waitForStart = async (res: Response): Promise<boolean> => {
    try {
      await start();
    } catch (err) {
      logger.error({ err }, 'gengate could not start its job queue (is the database reachable and migrated?)');
      const error = new GatewayError('service_unavailable', 'The generation service is not ready; try again shortly.');
      res.status(error.status).json(error.toBody());
      return false;
    }
    return true;
  };
  // Once started, a plain call: no promise, no microtask per request.
  const gate: FrontGate = { open: () => started, wait: waitForStart };
  const ready: RequestHandler = (_req, res, next) => (started ? next() : waitForStart(res).then((go) => (go ? next() : undefined)));
  // The gate goes first in the API router itself (one router level fewer per request) when that is
  // createGengateRouter's and no tracing middleware goes before it; otherwise a router of its own in front.
  const router = !tracing && setFrontGate(api, gate) ? api : (tracing ? Router().use(tracing.http) : Router()).use(ready).use(api);
  const openaiRouter = openaiApi ? (tracing ? Router().use(tracing.http) : Router()).use(ready).use(openaiApi) : null;

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
      workers = await workerStarter.start(which, tracing);
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
        await grace.bounded(sharedRouteHealth.close(), 'route health', 500);
        if (starting) await grace.bounded(boss.stop({ graceful: true, timeout: Math.max(grace.remaining(), 100) }), 'job queue', 500);
        if (ownPool) await grace.bounded(pool.end(), 'database', 500);
        // Last, so the spans of the shutdown itself are flushed (startTracing's exporter; nothing for loadTracing).
        if (tracing) await grace.bounded(tracing.shutdown(), 'trace export', 500);
      })();
      return closing;
    },
  };
}

/**
 * The routed models the host serves: the adapters package's route families (ROUTE_FAMILIES) with the routes
 * these adapters offer (a family without any is not served), then the operator's declarations, which replace
 * a default family of the same id (docs/routing.md).
 */
function servedRoutedModels(adapters: readonly AcceptedProviderAdapter[], declared: readonly RoutedModelDeclaration[]): RoutedModelDeclaration[] {
  const catalog = adapters.flatMap((a) => a.models.map((m) => m.id));
  return [...routeFamiliesFor(catalog, declared.map((d) => d.id)), ...declared];
}
