/**
 * @gengate/host: gengate in your own Express app. This entry loads nothing only the standalone server
 * needs (no CLI, no configuration loading, no embedded PostgreSQL) and no optional integration: Stripe
 * is `@gengate/host/stripe` (or `createGengateHost({ stripe })`, which imports it when given), the S3
 * result store (AWS SDK) is `@gengate/host/s3`, and nodemailer is imported on the first mail sent over SMTP. The standalone server is `@gengate/host/server`.
 */
// First: refuses an older Node.js with one clear line before any dependency can crash at import.
import './node-version-guard.js';

// Embedding in one call.
export { createGengateHost, type GengateHost } from './embed/create-gengate-host.js';
export type { GengateHostOptions, HostWorkerSelection, StripeHostOptions } from './embed/gengate-host-options.js';
export { DEFAULT_HOST_SETTINGS, resolveHostSettings, type GengateHostSettings, type GengateHostSettingsInput } from './embed/host-settings.js';
export type { EnsureUserInput } from './embed/ensure-user.js';

// Any framework: the HTTP surfaces as a fetch handler and a Node listener, and thin bridges (docs/embedding.md).
export { createGengateFetchHandler } from './http/fetch/create-fetch-handler.js';
export { createGengateNodeHandler, type GengateHttpSurfaces, type GengateSurfacePaths } from './http/fetch/gengate-node-handler.js';
export { fetchFromNode, type FetchHandler, type FetchRequestContext } from './http/fetch/fetch-from-node.js';
export { gengateHono, type HonoBridgeOptions, type HonoContextLike } from './http/fetch/bridges/hono.js';
export { gengateFastify, type FastifyInstanceLike } from './http/fetch/bridges/fastify.js';
export { nextRouteHandlers, type NextBridgeOptions, type NextRouteHandler, type NextRouteHandlers } from './http/fetch/bridges/next.js';

// The parts the facade is built from, for hosts that wire them by hand.
export { createGengateRouter, type GengateRouterOptions } from './http/create-router.js';
export type { RequestAuthenticator } from './http/middleware/authenticate.js';
export { createPgStores, type PgStoresOptions, type StoreReplacement, type StoreReplacements } from './postgres/pg-unit-of-work.js';
export { runMigrations } from './postgres/migrate.js';
export { DEFAULT_SCHEMA, SCHEMA_NAME, checkSchemaName } from './postgres/schema.js';
export type { Queryable } from './postgres/queryable.js';
export { connectionSettingsOf, type ConnectionSettings } from './postgres/connection-settings.js';
export { createBoss, QUEUES } from './postgres/boss-queues.js';
export { startGenerationWorker, type GenerationWorker } from './jobs/generation-worker.js';
export { LocalBlobStore } from './storage/local-blob-store.js';
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
export { createRequestScopedLogger } from './http/request-log-scope.js';
export { createPgKeyRateLimiter, createMemoryKeyRateLimiter } from './limits/create-rate-limiters.js';
export { createMailer } from './mail/create-mailer.js';
export { startAlertMailWorker } from './jobs/alert-mail-worker.js';
export { CallbackRepository } from './callbacks/callback-repository.js';
export { startCallbackWorker, type CallbackWorker } from './jobs/callback-worker.js';
export { postCallback, ForbiddenTargetError, AttemptAbortedError, MAX_RESPONSE_BYTES } from './callbacks/post-callback.js';
export { isForbiddenAddress } from '@gengate/core';
export { createApiReferenceRouter, type ApiReferenceOptions } from './http/api-reference.js';
export { openApiDocument } from './http/routes/openapi-document.js';

// The web dashboard, an optional mount on the router's authentication seam.
export { createDashboard, type Dashboard, type DashboardOptions, bossQueueInspector, startSessionPurge, CSRF_HEADER, createSessionAuthenticator, sessionCookie } from './dashboard/index.js';
export { PgSessionStore } from './postgres/pg-session-store.js';
export { PgAccountDirectory } from './postgres/pg-account-directory.js';

// Metrics, health and back-pressure (createGengateHost builds them; exported for hosts that wire by hand).
export { createOps, type Ops, type OpsSettings } from './ops/start-ops.js';
export { GengateMetrics, type WorkerMetrics, type CallbackResult } from './ops/gengate-metrics.js';
export { QueueDepthGate } from './ops/queue-gate.js';
export { httpMetrics } from './ops/http-metrics.js';
