import type { MarkupPolicy, Modality, ProviderLimits } from '@gengate/core';
import { type RoutedModelDeclaration } from '@gengate/core/internal';
import type { GengateHostSettings } from '../embed/host-settings.js';
import type { OpsSettings } from '../ops/start-ops.js';
import type { TraceExporterName } from '../tracing/tracing-switch.js';
import type { DashboardSettings } from '../dashboard/dashboard-settings.js';
import type { PgRouteHealthOptions } from '../postgres/pg-route-health.js';
import type { FileDelivery, StorageSettings } from '../storage/storage-settings.js';

export type ServerRole = 'api' | 'worker' | 'all';

export interface GengateConfig {
  /** Names /v1 clients may send for a model (alias -> gengate model id), from OPENAI_MODEL_ALIASES. */
  readonly openaiModelAliases: Readonly<Record<string, string>>;
  readonly port: number;
  readonly host: string;
  /** Base URL clients reach the server at (result URLs are built from it); null = derived after listening. */
  readonly publicUrl: string | null;
  readonly databaseUrl: string | null;
  /** The PostgreSQL schema of gengate's tables (DATABASE_SCHEMA, default `gengate`); pg-boss keeps its own. */
  readonly databaseSchema: string;
  readonly dataDir: string;
  readonly logLevel: string;
  readonly trustProxy: readonly string[];
  readonly workerConcurrency: number;
  readonly checkConcurrency: number;
  /** The operator's markup over upstream costs. */
  readonly markup: MarkupPolicy;
  /** Routed models declared by the operator (ROUTED_MODELS, a JSON array), validated by routedModelDeclarationsSchema. */
  readonly routedModels: readonly RoutedModelDeclaration[];
  readonly scheduling: { readonly maxRunningPerUser: Readonly<Record<Modality, number>>; readonly maxQueuedPerUser: number; readonly maxAttempts: number };
  /** Per-provider call limits (concurrent calls, calls per minute). */
  providerLimits(providerId: string): ProviderLimits;
  /**
   * What this process does: `api` serves HTTP only; `worker` runs generation, callbacks, mail and the
   * periodic jobs and serves only health; `all` (the default) both.
   */
  readonly role: ServerRole;
  /** Whether this process runs the workers (role `worker` or `all`). */
  readonly runWorker: boolean;
  readonly shutdownGraceMs: number;
  /** Whether `gengate serve` gives the heap's spare pages back when it goes idle after a busy period (IDLE_MEMORY_RELEASE, default true). */
  readonly idleMemoryRelease: boolean;
  readonly deadlineSeconds: { readonly chat: number; readonly image: number; readonly video: number };
  readonly sandboxLatencyMs: number | null;
  /** OpenTelemetry trace exporters from OTEL_TRACES_EXPORTER (empty: tracing off, the default; docs/observability.md). */
  readonly traceExporters: readonly TraceExporterName[];
  readonly sandboxLatencyJitterMs: number;
  readonly payments:
    | { readonly processor: 'manual' }
    | {
        readonly processor: 'stripe';
        readonly secretKey: string;
        readonly webhookSecret: string;
        readonly apiUrl: string | null;
        readonly successUrl: string | null;
        readonly cancelUrl: string | null;
      };
  readonly callbacks: GengateHostSettings['callbacks'];
  /** With FILE_ACCESS=signed: result URLs expire this long after they are handed out. */
  readonly resultUrlTtlSeconds: number;
  /** FILE_ACCESS: `signed` (expiring signed result URLs, the default) or `public` (plain URLs that never expire). */
  readonly fileAccess: 'signed' | 'public';
  /** When the maintenance sweep runs (cron, UTC). */
  readonly maintenanceCron: string;
  /** A pending manual top-up not completed by an operator within this time is marked failed. */
  readonly manualTopupExpiryHours: number;
  /** Downloads of results and reference inputs: private targets allowed (development only), size caps. */
  readonly fetching: {
    readonly allowPrivate: boolean;
    readonly maxResultBytes: Readonly<Record<Modality, number>>;
    readonly maxInputBytes: number;
  };
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  /** The web dashboard (sign-in by e-mail link, open sign-up). */
  readonly dashboard: DashboardSettings;
  /** Metrics port, back-pressure limit and queue sampling (see ops/start-ops.ts). */
  readonly ops: OpsSettings;
  /** Ended tasks (with files, holds, callback attempts, job rows) older than this are purged; null = kept forever. */
  readonly retentionDays: number | null;
  /** Results of at most this many bytes are kept with their task in PostgreSQL, not in the blob store; 0 = never. */
  readonly inlineResultMaxBytes: number;
  /** The routes' circuit breakers (ROUTE_BREAKER_*, docs/route-health.md). */
  readonly routeHealth: PgRouteHealthOptions;
  /** Where result files are kept (BLOB_STORE) and how they are served (FILES_DELIVERY). */
  readonly storage: StorageSettings;
  readonly fileDelivery: FileDelivery;
}
