/**
 * @gengate/host/server: the standalone server (what `gengate serve` runs): configuration loading,
 * embedded PostgreSQL, real providers from the environment, the logger with secret masking, the
 * standalone dashboard. An app that embeds gengate imports `@gengate/host` instead.
 */
// First: refuses an older Node.js with one clear line before any dependency can crash at import.
import '../node-version-guard.js';
export { startServer, type RunningServer, type StartServerOptions } from './start-server.js';
export { loadConfig, ConfigError, type GengateConfig, type ServerRole } from './config.js';
export type { TraceExporterName } from '../tracing/tracing-switch.js';
export { createLogger } from './logger.js';
export { startEmbeddedPostgres } from './embedded-postgres.js';
export { openDatabase, type OpenDatabase } from './database.js';
export { loadProviders, logProviderStatus, providerEnvironment, PROVIDER_SETTINGS, type LoadedProviders, type ProviderSettingName, type ProviderStatus } from './providers.js';
export { createStandaloneDashboard } from '../dashboard/standalone-dashboard.js';
export { createBlobStore } from '../storage/create-blob-store.js';
