/**
 * @gengate/host/wiring: the parts `createGengateHost` is built from, for a host wired by hand (its own
 * router mount, stores, workers, dashboard or metrics): the router, the PostgreSQL stores and migrations,
 * the pg-boss queues and workers, result URLs, rate limiters, mail, callbacks, the dashboard and the ops
 * pieces. An embedder who calls `createGengateHost` needs none of it (docs/public-entries.md).
 *
 * @packageDocumentation
 */
// First: refuses an older Node.js with one clear line before any dependency can crash at import.
import './node-version-guard.js';

// The container modules createGengateHost loads (their bindings and lifetimes: docs/architecture.md).
export { hostModule, type HostModuleConfig } from './embed/host-module.js';
export { postgresStoresModule, type PostgresStoresModuleOptions } from './postgres/postgres-stores-module.js';
export { PgRouteHealth, type PgRouteHealthOptions } from './postgres/pg-route-health.js';
export type { FileUrlSettings } from './host-tokens.js';
export { HostResultUrls } from './storage/host-result-urls.js';
export type { KeyCacheOptions } from './postgres/cached-key-store.js';

export { createGengateRouter, type GengateRouterOptions } from './http/create-router.js';
export { createPgStores, type PgStoresOptions, type StoreReplacement, type StoreReplacements } from './postgres/pg-unit-of-work.js';
export { runMigrations } from './postgres/migrate.js';
export { DEFAULT_SCHEMA, SCHEMA_NAME, checkSchemaName } from './postgres/schema.js';
export type { PreparedQueryable, Queryable } from './postgres/queryable.js';
export { connectionSettingsOf, type ConnectionSettings } from './postgres/connection-settings.js';
export { createBoss, QUEUES } from './postgres/boss-queues.js';
export { startGenerationWorker, type GenerationWorker } from './jobs/generation-worker.js';
export {
  createResultUrlResolver,
  createResultUrlVerifier,
  type ResultUrlSigning,
  type ResultUrlVerifier,
  type ResultUrlCheck,
} from './storage/result-urls.js';
export { deleteTaskFiles } from './storage/delete-task-files.js';
export { loadServerSecret } from './postgres/server-secrets.js';
export {
  startMaintenanceWorker,
  defaultMaintenanceSteps,
  taskSweepStep,
  retentionStep,
  runMaintenance,
  type MaintenanceStep,
  type MaintenanceContext,
  type MaintenanceSettings,
  type MaintenanceWorker,
} from './jobs/maintenance-worker.js';
export { createRequestScopedLogger } from './http/request-log-scope.js';
export { createPgKeyRateLimiter, createMemoryKeyRateLimiter } from './limits/create-rate-limiters.js';
export { createMailer } from './mail/create-mailer.js';
export { startAlertMailWorker } from './jobs/alert-mail-worker.js';
export { CallbackRepository } from './callbacks/callback-repository.js';
export { startCallbackWorker, type CallbackWorker } from './jobs/callback-worker.js';
export { postCallback, ForbiddenTargetError, AttemptAbortedError, MAX_RESPONSE_BYTES } from './callbacks/post-callback.js';

// The web dashboard, an optional mount on the router's authentication seam.
export { createDashboard, type Dashboard, type DashboardOptions, bossQueueInspector, startSessionPurge, CSRF_HEADER, createSessionAuthenticator, sessionCookie } from './dashboard/index.js';
export { PgSessionStore } from './postgres/pg-session-store.js';
export { PgAccountDirectory } from './postgres/pg-account-directory.js';

// Metrics, health and back-pressure (createGengateHost builds them).
export { createOps, type Ops, type OpsSettings } from './ops/start-ops.js';
export { GengateMetrics, type WorkerMetrics, type CallbackResult } from './ops/gengate-metrics.js';
export { QueueDepthGate } from './ops/queue-gate.js';
export { httpMetrics } from './ops/http-metrics.js';
