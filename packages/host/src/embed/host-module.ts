import { resolveExecutionOptions, TOKENS, type AcceptedProviderAdapter, type Clock, type BlobStore, type GengateUseCases, type KeyRateLimiter, type Mailer, type OrganizationStore, type PaymentProcessor, type ResultUrlResolver, type SchedulingOptions } from '@gengate/core';
import { fetchInput, invitationMailer } from '@gengate/core/internal';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { CallbackRepository } from '../callbacks/callback-repository.js';
import { createGengateRouter } from '../http/create-router.js';
import { createOpenAIRouter } from '../http/openai/create-openai-router.js';
import { createRequestScopedLogger } from '../http/request-log-scope.js';
import type { StripeWebhookOptions } from '../http/routes/stripe-webhook.js';
import { createPgKeyRateLimiter } from '../limits/create-rate-limiters.js';
import { PgCallLimiter } from '../limits/pg-call-limiter.js';
import { createMailer } from '../mail/create-mailer.js';
import { MeteredRouteHealth } from '../ops/metered-route-health.js';
import { createOps, type Ops } from '../ops/start-ops.js';
import { ManualPaymentProcessor } from '../payments/manual-processor.js';
import { newBoss, type BossOptions } from '../postgres/boss-queues.js';
import type { ConnectionSettings } from '../postgres/connection-settings.js';
import { PgRouteHealth } from '../postgres/pg-route-health.js';
import { HostResultUrls } from '../storage/host-result-urls.js';
import { LocalBlobStore } from '../storage/local-blob-store.js';
import { guardedFetchFor } from './guarded-fetch-for.js';
import type { GengateHostSettings } from './host-settings.js';
import { HOST_TOKENS, type HostOpenAIOptions, type HostRouterOptions, type HostUrls } from './host-tokens.js';
import { startHostWorkers } from './start-host-workers.js';

/** The configuration the host module binds as constants (createGengateHost reads it from its options). */
export interface HostModuleConfig {
  readonly logger: Logger;
  readonly settings: GengateHostSettings;
  readonly urls: HostUrls;
  readonly connection: ConnectionSettings;
  readonly adapters: readonly AcceptedProviderAdapter[];
  readonly secrets: readonly string[];
  readonly filesDir: string;
  readonly smtp: { readonly url: string | null; readonly from: string };
  readonly router: HostRouterOptions;
  readonly openai: HostOpenAIOptions;
  readonly stripeWebhook: StripeWebhookOptions | null;
  /** Ports the embedder gave in the options: bound as they are instead of the host's defaults. */
  readonly given: {
    readonly blobStore?: BlobStore;
    readonly mailer?: Mailer;
    readonly paymentProcessor?: PaymentProcessor;
    readonly rateLimiter?: KeyRateLimiter;
  };
}

/** A generation job outlives the longest deadline, so the deadline (not pg-boss) ends a slow task. */
export function generateExpireSeconds(settings: GengateHostSettings): number {
  return Math.max(settings.deadlineSeconds.chat, settings.deadlineSeconds.image, settings.deadlineSeconds.video) + 300;
}

/** Where each use case and port the routers and workers receive comes from. */
const USE_CASE_SOURCES = {
  registry: TOKENS.Registry, submitRun: TOKENS.SubmitRun, runInline: TOKENS.RunInline, getTask: TOKENS.GetTask, listTasks: TOKENS.ListTasks,
  quoteRun: TOKENS.QuoteRun, executeTask: TOKENS.ExecuteTask, failTask: TOKENS.FailTask, cancelTask: TOKENS.CancelTask, catalog: TOKENS.Catalog,
  keys: TOKENS.ManageKeys, organizations: TOKENS.ManageOrganizations, authenticate: TOKENS.Authenticate, billing: TOKENS.Billing, admin: TOKENS.Admin, receiveWebhook: TOKENS.ReceiveWebhook,
  sweepTasks: TOKENS.SweepTasks, usage: TOKENS.UsageReport, roles: TOKENS.CallerRoles, inflight: TOKENS.InflightCalls, prices: TOKENS.PriceBook, logger: TOKENS.Logger, stores: TOKENS.Stores,
  tasks: TOKENS.TaskStore, unitOfWork: TOKENS.UnitOfWork, clock: TOKENS.Clock, ids: TOKENS.Ids, routeHealth: TOKENS.RouteHealth,
} as const satisfies { readonly [K in keyof GengateUseCases]: ServiceIdentifier<GengateUseCases[K]> };
const USE_CASE_KEYS = Object.keys(USE_CASE_SOURCES) as (keyof GengateUseCases)[];

/**
 * The host's parts, bound to their tokens: the blob store, result URLs, mailer, payment processor, key
 * rate limiter, provider call limiter, callbacks repository, ops (metrics, health, back-pressure: core's
 * telemetry and submission gate), the job queue, the execution options (downloads through the guarded
 * fetch, trusting the adapters' origins), and the routers and workers, which receive their use cases
 * (`HOST_TOKENS.UseCases`, resolved from core's tokens) and never look anything up in the container.
 * Load it with `postgresStoresModule` (the stores), `coreSettingsModule` and `coreModule`.
 *
 * Lifetimes: what the options give is configuration, bound as constants (the embedder's blob store,
 * mailer, payment processor or rate limiter among them: its values, its lifetime). Everything else is a
 * singleton of the container, built on its first resolve, which createGengateHost makes once, after the
 * embedder's `configure`: a token rebound there is what every dependant receives. Nothing is transient
 * or request-scoped (a request's caller is an argument of each use case).
 */
export function hostModule(config: HostModuleConfig): ContainerModule {
  const { given } = config;
  return new ContainerModule(({ bind }) => {
    // Configuration.
    bind(HOST_TOKENS.HostLogger).toConstantValue(config.logger);
    bind(HOST_TOKENS.Settings).toConstantValue(config.settings);
    bind(HOST_TOKENS.Urls).toConstantValue(config.urls);
    bind(HOST_TOKENS.Connection).toConstantValue(config.connection);
    bind(HOST_TOKENS.FilesDir).toConstantValue(config.filesDir);
    bind(HOST_TOKENS.RouterOptions).toConstantValue(config.router);
    bind(HOST_TOKENS.OpenAIOptions).toConstantValue(config.openai);
    bind(HOST_TOKENS.StripeWebhook).toConstantValue(config.stripeWebhook);
    bind(HOST_TOKENS.Secrets).toConstantValue(config.secrets);
    bind(TOKENS.Adapters).toConstantValue(config.adapters);
    bind(HOST_TOKENS.FileUrls)
      .toResolvedValue(
        (s: GengateHostSettings, urls: HostUrls) => ({ publicUrl: urls.publicUrl, mountPath: urls.mountPath, signed: s.fileAccess === 'signed', ttlSeconds: s.resultUrlTtlSeconds }),
        [HOST_TOKENS.Settings, HOST_TOKENS.Urls],
      )
      .inSingletonScope();
    bind(HOST_TOKENS.ProviderLimits).toResolvedValue((s: GengateHostSettings) => (id: string) => s.providerLimits(id), [HOST_TOKENS.Settings]).inSingletonScope();
    bind(HOST_TOKENS.BossOptions)
      .toResolvedValue(
        (s: GengateHostSettings, connection: ConnectionSettings, logger: Logger): BossOptions => ({
          connectionString: connection,
          logger,
          callbackRetryDelaySeconds: s.callbacks.retryDelaySeconds,
          callbackTimeoutMs: s.callbacks.timeoutMs,
          generateExpireSeconds: generateExpireSeconds(s),
        }),
        [HOST_TOKENS.Settings, HOST_TOKENS.Connection, HOST_TOKENS.HostLogger],
      )
      .inSingletonScope();
    // Downloads of results and reference inputs go through the guarded fetch, which trusts the adapters' origins.
    bind(TOKENS.ExecutionOptions)
      .toResolvedValue(
        (adapters: readonly AcceptedProviderAdapter[], s: GengateHostSettings, urls: HostUrls, secrets: readonly string[], scheduling: SchedulingOptions) => {
          const guardedFetch = guardedFetchFor(adapters, s.fetching.allowPrivate);
          return resolveExecutionOptions(
            {
              deadlineMs: { chat: s.deadlineSeconds.chat * 1000, image: s.deadlineSeconds.image * 1000, video: s.deadlineSeconds.video * 1000 },
              fetch: guardedFetch,
              readInput: fetchInput(guardedFetch, s.fetching.maxInputBytes),
              maxResultBytes: s.fetching.maxResultBytes,
              inlineResultMaxBytes: s.inlineResultMaxBytes,
              // Upstreams that can call us back when a job ends are given this URL (polling stays the fallback).
              webhookUrl: (provider, taskId) => (urls.publicUrl() ? `${urls.apiUrl()}/providers/${encodeURIComponent(provider)}/webhook?task=${taskId}` : null),
              secrets,
            },
            scheduling,
          );
        },
        [TOKENS.Adapters, HOST_TOKENS.Settings, HOST_TOKENS.Urls, HOST_TOKENS.Secrets, TOKENS.Scheduling],
      )
      .inSingletonScope();

    // Ports.
    bind(TOKENS.Logger).toResolvedValue(createRequestScopedLogger, [HOST_TOKENS.HostLogger]).inSingletonScope();
    bind(HOST_TOKENS.Boss).toResolvedValue((o: BossOptions): PgBoss | null => newBoss(o), [HOST_TOKENS.BossOptions]).inSingletonScope();
    if (given.blobStore) bind(TOKENS.BlobStore).toConstantValue(given.blobStore);
    else bind(TOKENS.BlobStore).to(LocalBlobStore).inSingletonScope();
    bind(HOST_TOKENS.ResultUrlSigning).to(HostResultUrls).inSingletonScope();
    bind(TOKENS.ResultUrls).toService(HOST_TOKENS.ResultUrlSigning);
    if (given.paymentProcessor) bind(TOKENS.PaymentProcessor).toConstantValue(given.paymentProcessor);
    else bind(TOKENS.PaymentProcessor).to(ManualPaymentProcessor).inSingletonScope();
    if (given.mailer) bind(HOST_TOKENS.Mailer).toConstantValue(given.mailer);
    else {
      const { smtp } = config;
      bind(HOST_TOKENS.Mailer).toResolvedValue((logger: Logger) => createMailer({ smtpUrl: smtp.url, from: smtp.from, logger }), [HOST_TOKENS.HostLogger]).inSingletonScope();
    }
    // Invitation links are mailed at once, like sign-in links, to the configured public URL's dashboard.
    bind(TOKENS.InvitationMailer)
      .toResolvedValue((mailer: Mailer, urls: HostUrls) => invitationMailer(mailer, () => urls.publicUrl()), [HOST_TOKENS.Mailer, HOST_TOKENS.Urls])
      .inSingletonScope();
    if (given.rateLimiter) bind(HOST_TOKENS.KeyRateLimiter).toConstantValue(given.rateLimiter);
    else bind(HOST_TOKENS.KeyRateLimiter).toResolvedValue(createPgKeyRateLimiter, [HOST_TOKENS.Pool, HOST_TOKENS.Schema]).inSingletonScope();
    bind(TOKENS.CallLimiter).to(PgCallLimiter).inSingletonScope();
    bind(HOST_TOKENS.Callbacks).to(CallbackRepository).inSingletonScope();
    bind(HOST_TOKENS.Ops)
      .toResolvedValue(
        (s: GengateHostSettings, pool: pg.Pool, schema: string, logger: Logger) => createOps({ settings: s.ops, db: pool, schema, logger }),
        [HOST_TOKENS.Settings, HOST_TOKENS.Pool, HOST_TOKENS.Schema, HOST_TOKENS.HostLogger],
      )
      .inSingletonScope();
    bind(TOKENS.Telemetry).toResolvedValue((ops: Ops) => ops.metrics, [HOST_TOKENS.Ops]).inSingletonScope();
    bind(TOKENS.SubmissionGate).toResolvedValue((ops: Ops) => ops.gate, [HOST_TOKENS.Ops]).inSingletonScope();
    // The routes' breakers, shared by every process through PostgreSQL, each attempt counted in the metrics.
    bind(PgRouteHealth)
      .toResolvedValue(
        (pool: pg.Pool, schema: string, clock: Clock, logger: Logger, s: GengateHostSettings) => new PgRouteHealth(pool, schema, clock, logger, s.routeHealth),
        [HOST_TOKENS.Pool, HOST_TOKENS.Schema, TOKENS.Clock, HOST_TOKENS.HostLogger, HOST_TOKENS.Settings],
      )
      .inSingletonScope();
    bind(TOKENS.RouteHealth).toResolvedValue((shared: PgRouteHealth, ops: Ops) => new MeteredRouteHealth(shared, ops.metrics), [PgRouteHealth, HOST_TOKENS.Ops]).inSingletonScope();

    // The routers and workers, given their use cases.
    bind(HOST_TOKENS.UseCases)
      .toResolvedValue(
        (...values: unknown[]) => Object.fromEntries(USE_CASE_KEYS.map((key, i) => [key, values[i]])) as unknown as GengateUseCases,
        USE_CASE_KEYS.map((key) => USE_CASE_SOURCES[key]),
      )
      .inSingletonScope();
    bind(HOST_TOKENS.ApiRouter)
      .toResolvedValue(
        (
          useCases: GengateUseCases,
          blobStore: BlobStore,
          logger: Logger,
          s: GengateHostSettings,
          rateLimiter: KeyRateLimiter,
          callbacks: CallbackRepository,
          urls: HostResultUrls,
          o: HostRouterOptions,
          stripeWebhook: StripeWebhookOptions | null,
        ) =>
          createGengateRouter({
            gengate: useCases,
            blobStore,
            logger,
            trustProxy: [...s.trustProxy],
            rateLimiter,
            callbacks,
            // Checked per request: the secret is loaded by start(), which the host runs before any route.
            ...(s.fileAccess === 'signed' ? { resultUrlVerifier: urls } : {}),
            ...(s.fileAccess === 'session' ? { fileAccess: 'owner' as const } : {}),
            ...(o.authenticateFiles ? { authenticateFiles: o.authenticateFiles } : {}),
            ...(o.signInHint !== undefined ? { signInHint: o.signInHint } : {}),
            now: () => urls.now(),
            ...(stripeWebhook ? { stripeWebhook } : {}),
            ...(o.authenticate ? { authenticate: o.authenticate } : {}),
            ...(o.maxBodyBytes !== undefined ? { maxBodyBytes: o.maxBodyBytes } : {}),
            ...(o.fileDelivery ? { fileDelivery: o.fileDelivery } : {}),
          }),
        [
          HOST_TOKENS.UseCases, TOKENS.BlobStore, HOST_TOKENS.HostLogger, HOST_TOKENS.Settings, HOST_TOKENS.KeyRateLimiter, HOST_TOKENS.Callbacks,
          HOST_TOKENS.ResultUrlSigning, HOST_TOKENS.RouterOptions, HOST_TOKENS.StripeWebhook,
        ],
      )
      .inSingletonScope();
    bind(HOST_TOKENS.OpenAIRouter)
      .toResolvedValue(
        (openai: HostOpenAIOptions, useCases: GengateUseCases, blobStore: BlobStore, logger: Logger, s: GengateHostSettings, rateLimiter: KeyRateLimiter) =>
          openai ? createOpenAIRouter({ gengate: useCases, blobStore, logger, trustProxy: [...s.trustProxy], rateLimiter, ...openai }) : null,
        [HOST_TOKENS.OpenAIOptions, HOST_TOKENS.UseCases, TOKENS.BlobStore, HOST_TOKENS.HostLogger, HOST_TOKENS.Settings, HOST_TOKENS.KeyRateLimiter],
      )
      .inSingletonScope();
    bind(HOST_TOKENS.Workers)
      .toResolvedValue(
        (
          boss: PgBoss | null,
          useCases: GengateUseCases,
          pool: pg.Pool,
          schema: string,
          connection: ConnectionSettings,
          blobStore: BlobStore,
          callbacks: CallbackRepository,
          resultUrls: ResultUrlResolver,
          mailer: Mailer,
          logger: Logger,
          s: GengateHostSettings,
          ops: Ops,
          urls: HostUrls,
          organizations: OrganizationStore,
        ) => ({
          start: (which, tracing) => {
            if (!boss) throw new Error('the host has no job queue (HOST_TOKENS.Boss is bound to null)');
            return startHostWorkers(
              { boss, gengate: useCases, pool, schema, connection, blobStore, callbacks, resultUrls, mailer, logger, settings: s, generateExpireSeconds: generateExpireSeconds(s), metrics: ops.metrics, apiUrl: urls.apiUrl, tracing: tracing ?? null, organizations },
              which,
            );
          },
        }),
        [
          HOST_TOKENS.Boss, HOST_TOKENS.UseCases, HOST_TOKENS.Pool, HOST_TOKENS.Schema, HOST_TOKENS.Connection, TOKENS.BlobStore, HOST_TOKENS.Callbacks,
          TOKENS.ResultUrls, HOST_TOKENS.Mailer, HOST_TOKENS.HostLogger, HOST_TOKENS.Settings, HOST_TOKENS.Ops, HOST_TOKENS.Urls, TOKENS.OrganizationStore,
        ],
      )
      .inSingletonScope();
  });
}
