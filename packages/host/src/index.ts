/**
 * @gengate/host: gengate in your own Express app, in one call (`createGengateHost`) with the types of its
 * options and what it returns. This entry loads nothing only the standalone server needs (no CLI, no
 * configuration loading, no embedded PostgreSQL) and no optional integration: Stripe is
 * `@gengate/host/stripe` (or `createGengateHost({ stripe })`, which imports it when given), the S3 result
 * store (AWS SDK) is `@gengate/host/s3`, and nodemailer is imported on the first mail sent over SMTP. The
 * parts the facade is built from, for a host wired by hand, are `@gengate/host/wiring`; the standalone
 * server is `@gengate/host/server` (docs/public-entries.md).
 *
 * @packageDocumentation
 */
// First: refuses an older Node.js with one clear line before any dependency can crash at import.
import './node-version-guard.js';

// Embedding in one call.
export { createGengateHost, type GengateHost } from './embed/create-gengate-host.js';
export type { GengateHostOptions, HostWorkerSelection, StripeHostOptions } from './embed/gengate-host-options.js';
export { DEFAULT_HOST_SETTINGS, resolveHostSettings, type GengateHostSettings, type GengateHostSettingsInput } from './embed/host-settings.js';
export type { PgRouteHealthOptions } from './postgres/pg-route-health.js';
export type { EnsureUserInput } from './embed/ensure-user.js';
// What a feature throws when its optional peer dependency is not installed (docs/embedding.md).
export { OptionalDependencyMissing, OPTIONAL_DEPENDENCIES, type OptionalDependency } from './optional-dependency.js';
// OpenTelemetry traces (docs/observability.md): off unless asked for; the SDK is an optional peer, loaded only then.
export { loadTracing, startTracing } from './tracing/start-tracing.js';
export { traceExporters, type TraceExporterName } from './tracing/tracing-switch.js';
export type { HostTracing, TaskTrace, TracedJob } from './tracing/host-tracing.js';

// Any framework: the HTTP surfaces as a fetch handler and a Node listener, and thin bridges (docs/embedding.md).
export { createGengateFetchHandler } from './http/fetch/create-fetch-handler.js';
export { createGengateNodeHandler, type GengateHttpSurfaces, type GengateSurfacePaths } from './http/fetch/gengate-node-handler.js';
export { fetchFromNode, type FetchHandler, type FetchRequestContext } from './http/fetch/fetch-from-node.js';
export { gengateHono, type HonoBridgeOptions, type HonoContextLike } from './http/fetch/bridges/hono.js';
export { gengateFastify, type FastifyInstanceLike } from './http/fetch/bridges/fastify.js';
export { nextRouteHandlers, type NextBridgeOptions, type NextRouteHandler, type NextRouteHandlers } from './http/fetch/bridges/next.js';

// The tokens an embedder rebinds in createGengateHost's `configure` (docs/embedding.md, "Replacing a host port").
export {
  HOST_BOUND_CORE_PORTS,
  HOST_PART_TOKENS,
  HOST_PORT_TOKENS,
  HOST_SETTING_TOKENS,
  HOST_TOKENS,
  type HostOpenAIOptions,
  type HostRouterOptions,
  type HostTokenName,
  type HostUrls,
  type HostWorkerStarter,
} from './embed/host-tokens.js';
export type { KeyCacheOptions } from './postgres/cached-key-store.js';

// What createGengateHost's options take.
export type { RequestAuthenticator } from './http/middleware/authenticate.js';
export type { FileDeliveryOptions } from './http/routes/files-delivery.js';
export { LocalBlobStore } from './storage/local-blob-store.js';
export { ManualPaymentProcessor } from './payments/manual-processor.js';

// The API's own documents, to serve beside it.
export { createApiReferenceRouter, type ApiReferenceOptions } from './http/api-reference.js';
export { openApiDocument } from './http/routes/openapi-document.js';
