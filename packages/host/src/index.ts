export { createGengateRouter, type GengateRouterOptions } from './http/create-router.js';
export { createPgStores, type PgStoresOptions, type StoreReplacement, type StoreReplacements } from './postgres/pg-unit-of-work.js';
export { runMigrations } from './postgres/migrate.js';
export { DEFAULT_SCHEMA, SCHEMA_NAME, checkSchemaName } from './postgres/schema.js';
export type { Queryable } from './postgres/queryable.js';
export { createBoss, QUEUES } from './jobs/queues.js';
export { startGenerationWorker, type GenerationWorker } from './jobs/generation-worker.js';
export { LocalBlobStore } from './storage/local-blob-store.js';
export { S3BlobStore, type S3BlobStoreSettings } from './storage/s3-blob-store.js';
export { createBlobStore } from './storage/create-blob-store.js';
export type { FileDeliveryOptions } from './http/routes/files-delivery.js';
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
export { ManualPaymentProcessor } from './payments/manual-processor.js';
export { startServer, type RunningServer, type StartServerOptions } from './server/start-server.js';
export { loadConfig, ConfigError, type GengateConfig } from './server/config.js';
export { createLogger } from './server/logger.js';
export { startEmbeddedPostgres } from './server/embedded-postgres.js';
export { createRequestScopedLogger } from './http/request-log-scope.js';
export { createPgKeyRateLimiter, createMemoryKeyRateLimiter } from './limits/create-rate-limiters.js';
export { StripePaymentProcessor, createStripeClient } from './payments/stripe-processor.js';
export { createMailer } from './mail/create-mailer.js';
export { startAlertMailWorker } from './jobs/alert-mail-worker.js';
export { CallbackRepository } from './callbacks/callback-repository.js';
export { startCallbackWorker, type CallbackWorker } from './jobs/callback-worker.js';
export { postCallback, ForbiddenTargetError, AttemptAbortedError, MAX_RESPONSE_BYTES } from './callbacks/post-callback.js';
export { isForbiddenAddress } from './callbacks/address-guard.js';
export { loadProviders, logProviderStatus, providerEnvironment, PROVIDER_SETTINGS, type LoadedProviders, type ProviderStatus } from './server/providers.js';
export { createApiReferenceRouter, type ApiReferenceOptions } from './http/api-reference.js';
export { openApiDocument } from './http/routes/openapi-document.js';
export { createDashboard, type Dashboard, type DashboardOptions, bossQueueInspector, startSessionPurge, CSRF_HEADER, createSessionAuthenticator, sessionCookie } from './dashboard/index.js';
export { createStandaloneDashboard } from './dashboard/standalone-dashboard.js';
export { PgSessionStore } from './postgres/pg-session-store.js';
export { PgAccountDirectory } from './postgres/pg-account-directory.js';
export type { RequestAuthenticator } from './http/middleware/authenticate.js';
export { createOps, type Ops, type OpsSettings } from './ops/start-ops.js';
export { GengateMetrics, type WorkerMetrics, type CallbackResult } from './ops/gengate-metrics.js';
export { QueueDepthGate } from './ops/queue-gate.js';
export { httpMetrics } from './ops/http-metrics.js';
