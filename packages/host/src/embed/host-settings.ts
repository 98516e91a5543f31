import type { MarkupPolicy, Modality, ProviderLimits, RoutedModelDeclaration } from '@gengate/core';
import { MARKUP_ONE } from '@gengate/core/internal';
import type { OpsSettings } from '../ops/start-ops.js';
import type { PgRouteHealthOptions } from '../postgres/pg-route-health.js';

/**
 * What a gengate host is tuned by: deadlines, scheduling, worker concurrency, callbacks, downloads,
 * result URL expiry, maintenance, shutdown grace. The standalone server passes its GengateConfig (which
 * has these fields under the same names); an embedder gives only what differs from DEFAULT_HOST_SETTINGS.
 */
export interface GengateHostSettings {
  /** How long a task may run before it fails, per modality. */
  readonly deadlineSeconds: Readonly<Record<Modality, number>>;
  readonly scheduling: { readonly maxRunningPerUser: Readonly<Record<Modality, number>>; readonly maxQueuedPerUser: number; readonly maxAttempts: number };
  /** The operator's markup over upstream costs. */
  readonly markup: MarkupPolicy;
  /**
   * Routed models (one id served by several provider routes, with a policy; docs/routing-mechanism.md). A
   * declaration replaces an adapter package's default family of the same id. Default none.
   */
  readonly routedModels?: readonly RoutedModelDeclaration[];
  /** Per-provider call limits (concurrent calls, calls per minute) shared by every worker process. */
  providerLimits(providerId: string): ProviderLimits;
  /** Upstream calls one worker process runs at once. */
  readonly workerConcurrency: number;
  /** Status checks of long-running upstream jobs one worker process runs at once. */
  readonly checkConcurrency: number;
  readonly callbacks: {
    /** Development only: deliver callbacks to loopback and private addresses. */
    readonly allowPrivate: boolean;
    /** Total time one delivery attempt may take: connect, headers and body. */
    readonly timeoutMs: number;
    readonly retryDelaySeconds: number;
    /** Callback deliveries this process runs at once. */
    readonly concurrency: number;
    /** Callback deliveries of one user in flight at once in this process (one user's slow receivers hold at most this many slots). */
    readonly perUserConcurrency: number;
    readonly attemptRetentionDays: number;
  };
  /** Downloads of results and reference inputs. */
  readonly fetching: { readonly allowPrivate: boolean; readonly maxResultBytes: Readonly<Record<Modality, number>>; readonly maxInputBytes: number };
  /**
   * Who may download a result file. `signed` (default): whoever holds a result URL, until it expires;
   * each URL handed out (task poll, callback) carries `expires` and an HMAC-SHA256 `signature` made with
   * a secret kept in the database (every process shares it). `session`: the task's owner only,
   * authenticated as on every other route (createGengateHost's `authenticateFiles` or `authenticate`,
   * then the API key); URLs are plain. `public`: whoever holds the URL, forever (no signature): only
   * for results that are public anyway.
   */
  readonly fileAccess: 'signed' | 'session' | 'public';
  /** With fileAccess `signed`: how long a result URL stays valid after it is handed out. */
  readonly resultUrlTtlSeconds: number;
  /** When the maintenance sweep runs (five-field cron, UTC). */
  readonly maintenanceCron: string;
  /** A pending manual top-up not completed within this time is marked failed. */
  readonly manualTopupExpiryHours: number;
  /** close() stops everything within this time in total. */
  readonly shutdownGraceMs: number;
  /** Addresses or CIDR ranges of proxies whose X-Forwarded-For is believed. */
  readonly trustProxy: readonly string[];
  /**
   * Metrics and back-pressure: submissions are refused (503 overloaded) past `maxQueuedJobs` waiting
   * generation jobs, sampled every `queueSampleIntervalMs`; `metricsPort` serves /metrics, /healthz and
   * /readyz on a port of their own; `metricsToken` makes /metrics ask for `Authorization: Bearer <token>`.
   * With neither, `host.ops.router` serves /healthz and /readyz but no /metrics (read `ops.metrics.registry`
   * yourself, or set a token).
   */
  readonly ops: OpsSettings;
  /** Ended tasks (and their files) older than this are purged by the maintenance sweep; null = kept. */
  readonly retentionDays: number | null;
  /**
   * A result of at most this many bytes (a chat answer) is kept with its task in PostgreSQL, written by the
   * statement that commits the success, instead of in the blob store; same URL. 0 = every result goes to
   * the blob store.
   */
  readonly inlineResultMaxBytes: number;
  /** The routes' circuit breakers shared through PostgreSQL: their rules and how often processes sync (docs/route-health.md). */
  readonly routeHealth: PgRouteHealthOptions;
}

/** The defaults: the same as the standalone server's configuration defaults (docs/configuration.md). */
export const DEFAULT_HOST_SETTINGS: GengateHostSettings = {
  deadlineSeconds: { chat: 120, image: 300, video: 900 },
  scheduling: { maxRunningPerUser: { chat: 8, image: 4, video: 50 }, maxQueuedPerUser: 1_000, maxAttempts: 4 },
  markup: { defaultBp: MARKUP_ONE, providers: new Map(), models: new Map() },
  providerLimits: () => ({ maxConcurrent: null, maxPerMinute: null }),
  workerConcurrency: 32,
  checkConcurrency: 16,
  callbacks: { allowPrivate: false, timeoutMs: 10_000, retryDelaySeconds: 10, concurrency: 32, perUserConcurrency: 4, attemptRetentionDays: 30 },
  fetching: {
    allowPrivate: false,
    maxResultBytes: { chat: 16 * 1024 * 1024, image: 64 * 1024 * 1024, video: 1024 * 1024 * 1024 },
    maxInputBytes: 50 * 1024 * 1024,
  },
  fileAccess: 'signed',
  resultUrlTtlSeconds: 3_600,
  maintenanceCron: '*/10 * * * *',
  manualTopupExpiryHours: 168,
  shutdownGraceMs: 10_000,
  trustProxy: [],
  ops: { metricsPort: null, metricsToken: null, maxQueuedJobs: 50_000, queueSampleIntervalMs: 1_000 },
  retentionDays: null,
  inlineResultMaxBytes: 4096,
  routeHealth: {},
};

/** Partial settings over the defaults (nested records merged one level deep). */
export type GengateHostSettingsInput = Partial<Omit<GengateHostSettings, 'scheduling' | 'callbacks' | 'fetching' | 'deadlineSeconds' | 'ops'>> & {
  readonly ops?: Partial<OpsSettings>;
  readonly deadlineSeconds?: Partial<Readonly<Record<Modality, number>>>;
  readonly scheduling?: Partial<GengateHostSettings['scheduling']>;
  readonly callbacks?: Partial<GengateHostSettings['callbacks']>;
  readonly fetching?: Partial<GengateHostSettings['fetching']>;
};

export function resolveHostSettings(input: GengateHostSettingsInput = {}): GengateHostSettings {
  const d = DEFAULT_HOST_SETTINGS;
  return {
    ...d,
    ...input,
    providerLimits: input.providerLimits ?? d.providerLimits,
    deadlineSeconds: { ...d.deadlineSeconds, ...input.deadlineSeconds },
    scheduling: {
      ...d.scheduling,
      ...input.scheduling,
      maxRunningPerUser: { ...d.scheduling.maxRunningPerUser, ...input.scheduling?.maxRunningPerUser },
    },
    callbacks: { ...d.callbacks, ...input.callbacks },
    ops: { ...d.ops, ...input.ops },
    fetching: { ...d.fetching, ...input.fetching, maxResultBytes: { ...d.fetching.maxResultBytes, ...input.fetching?.maxResultBytes } },
  };
}
