import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { MarkupPolicy, Modality, ProviderLimits } from '@gengate/core';
import { MARKUP_ONE, parseIpEntry, parseMarkupFactor, routedModelDeclarationsSchema, type RoutedModelDeclaration } from '@gengate/core/internal';
import { z } from 'zod';
import { bool, int } from '../env-values.js';
import type { OpsSettings } from '../ops/start-ops.js';
import { DEFAULT_SCHEMA, SCHEMA_NAME } from '../postgres/schema.js';
import { traceExporters, type TraceExporterName } from '../tracing/tracing-switch.js';
import { DASHBOARD_ENV, dashboardSettings, type DashboardSettings } from '../dashboard/dashboard-settings.js';
import type { PgRouteHealthOptions } from '../postgres/pg-route-health.js';
import { ROUTE_HEALTH_ENV, routeHealthIssues, routeHealthSettings } from '../postgres/route-health-settings.js';
import { fileDelivery, STORAGE_ENV, storageIssues, storageSettings, type FileDelivery, type StorageSettings } from '../storage/storage-settings.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}


/** `name=value,name=value` lists (e.g. `openai=8,anthropic=4`), each value checked by `parse`. */
function keyValueList<T>(parse: (v: string) => T | null, what: string) {
  return z
    .string()
    .default('')
    .transform((text, ctx) => {
      const out = new Map<string, T>();
      for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
        const [name, raw, extra] = item.split('=').map((s) => s.trim());
        const value = raw === undefined ? null : parse(raw);
        if (!name || !/^[a-z0-9][a-z0-9._-]*$/.test(name) || value === null || extra !== undefined) {
          ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of name=${what}` });
          return z.NEVER;
        }
        out.set(name, value);
      }
      return out;
    });
}
const positiveInt = (v: string): number | null => (/^\d{1,9}$/.test(v) && Number(v) > 0 ? Number(v) : null);

const envSchema = z.object({
  PORT: int(0, 65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_SCHEMA: z
    .string()
    .regex(SCHEMA_NAME, 'must be a lowercase PostgreSQL identifier (a-z, 0-9, _; not starting with a digit; at most 63 characters)')
    .default(DEFAULT_SCHEMA),
  GENGATE_DATA_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .refine((list) => list.every((e) => parseIpEntry(e) !== null), 'must be a comma-separated list of IP addresses or CIDR ranges'),
  WORKER_CONCURRENCY: int(1, 256).default(8),
  STATUS_CHECK_CONCURRENCY: int(1, 1_024).default(16),
  PRICE_MARKUP: z.string().default('1').refine((v) => parseMarkupFactor(v) !== null, 'must be a factor such as 1.25 (up to 4 decimals, at most 100)'),
  PRICE_MARKUP_OVERRIDES: keyValueList(parseMarkupFactor, 'factor (a provider id or a model id)'),
  ROUTED_MODELS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return [];
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON array of routed models ({"id", "name", "routes": [...], "policy"?})' });
        return z.NEVER;
      }
      const parsed = routedModelDeclarationsSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        ctx.addIssue({ code: 'custom', message: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` });
        return z.NEVER;
      }
      return parsed.data;
    }),
  OPENAI_MODEL_ALIASES: keyValueList((v) => (/^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9._:-]*$/i.test(v) ? v : null), 'gengate model id (alias=provider.model)'),
  TASKS_RUNNING_PER_USER_CHAT: int(1, 10_000).default(8),
  TASKS_RUNNING_PER_USER_IMAGE: int(1, 10_000).default(4),
  TASKS_RUNNING_PER_USER_VIDEO: int(1, 10_000).default(50),
  TASKS_QUEUED_PER_USER: int(0, 1_000_000).default(1_000),
  TASK_MAX_ATTEMPTS: int(1, 20).default(4),
  PROVIDER_MAX_CONCURRENCY: keyValueList(positiveInt, 'positive integer'),
  PROVIDER_MAX_PER_MINUTE: keyValueList(positiveInt, 'positive integer'),
  ROLE: z.enum(['api', 'worker', 'all']).optional(),
  /** Older name: RUN_WORKER=false is ROLE=api (ROLE wins when both are set). */
  RUN_WORKER: bool.default(true),
  SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000),
  DEADLINE_CHAT_SECONDS: int(1, 86_400).default(120),
  DEADLINE_IMAGE_SECONDS: int(1, 86_400).default(300),
  DEADLINE_VIDEO_SECONDS: int(1, 86_400).default(900),
  SANDBOX_LATENCY_MS: int(0, 3_600_000).optional(),
  SANDBOX_LATENCY_JITTER_MS: int(0, 3_600_000).default(0),
  PAYMENT_PROCESSOR: z.enum(['manual', 'stripe']).default('manual'),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_test_... or sk_live_...)').optional(),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_\w+$/, 'must be a Stripe webhook signing secret (whsec_...)').optional(),
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  STRIPE_SUCCESS_URL: z.url({ protocol: /^https?$/ }).optional(),
  STRIPE_CANCEL_URL: z.url({ protocol: /^https?$/ }).optional(),
  CALLBACK_ALLOW_PRIVATE: bool.default(false),
  FETCH_ALLOW_PRIVATE: bool.default(false),
  RESULT_MAX_BYTES_CHAT: int(1, 1_000_000_000_000).default(16 * 1024 * 1024),
  RESULT_MAX_BYTES_IMAGE: int(1, 1_000_000_000_000).default(64 * 1024 * 1024),
  RESULT_MAX_BYTES_VIDEO: int(1, 1_000_000_000_000).default(1024 * 1024 * 1024),
  INPUT_MAX_BYTES: int(1, 10_000_000_000).default(50 * 1024 * 1024),
  CALLBACK_TIMEOUT_MS: int(100, 120_000).default(10_000),
  CALLBACK_RETRY_DELAY_SECONDS: int(1, 3_600).default(10),
  CALLBACK_CONCURRENCY: int(1, 1_024).default(32),
  CALLBACK_PER_USER_CONCURRENCY: int(1, 1_024).default(4),
  CALLBACK_ATTEMPT_RETENTION_DAYS: int(1, 3_650).default(30),
  RESULT_URL_TTL_SECONDS: int(1, 31_536_000).default(3_600),
  FILE_ACCESS: z.enum(['signed', 'public']).default('signed'),
  MAINTENANCE_CRON: z
    .string()
    .regex(/^\S+( \S+){4}$/, 'must be a five-field cron expression, e.g. "*/10 * * * *"')
    .default('*/10 * * * *'),
  MANUAL_TOPUP_EXPIRY_HOURS: int(1, 8_760).default(168),
  METRICS_PORT: int(0, 65_535).optional(),
  METRICS_TOKEN: z.string().regex(/^[\x21-\x7e]{16,256}$/, 'must be 16 to 256 printable characters without spaces (e.g. openssl rand -hex 32)').optional(),
  MAX_QUEUED_JOBS: int(1, 100_000_000).default(50_000),
  QUEUE_SAMPLE_INTERVAL_MS: int(100, 60_000).default(1_000),
  RETENTION_DAYS: int(1, 36_500).optional(),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('gengate <no-reply@localhost>'),
  ...DASHBOARD_ENV,
  ...STORAGE_ENV,
  ...ROUTE_HEALTH_ENV,
}).superRefine((c, ctx) => {
  if (c.METRICS_PORT !== undefined && c.METRICS_PORT !== 0 && c.METRICS_PORT === c.PORT) {
    ctx.addIssue({ code: 'custom', path: ['METRICS_PORT'], message: 'must differ from PORT (unset it and set METRICS_TOKEN to serve /metrics on PORT behind a token)' });
  }
  for (const i of [...storageIssues(c), ...routeHealthIssues(c)]) ctx.addIssue({ code: 'custom', path: [i.path], message: i.message });
  if (c.PAYMENT_PROCESSOR !== 'stripe') return;
  for (const key of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const) {
    if (!c[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'is required when PAYMENT_PROCESSOR=stripe' });
  }
});

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
  readonly callbacks: {
    readonly allowPrivate: boolean;
    /** Total time one delivery attempt may take: connect, headers and body. */
    readonly timeoutMs: number;
    readonly retryDelaySeconds: number;
    /** Callback deliveries this process runs at once. */
    readonly concurrency: number;
    /** Callback deliveries of one user in flight at once, across every process. */
    readonly perUserConcurrency: number;
    readonly attemptRetentionDays: number;
  };
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
  /** The routes' circuit breakers (ROUTE_BREAKER_*, docs/route-health.md). */
  readonly routeHealth: PgRouteHealthOptions;
  /** Where result files are kept (BLOB_STORE) and how they are served (FILES_DELIVERY). */
  readonly storage: StorageSettings;
  readonly fileDelivery: FileDelivery;
}

/** The values of a GENGATE_CONFIG_FILE (a JSON object of strings, numbers and booleans), as strings. */
export function fileValues(path: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    // Not err.message: a JSON syntax error quotes the text around it, which may be a secret.
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(`GENGATE_CONFIG_FILE: cannot read ${path} as JSON (${code ?? 'not valid JSON'})`);
  }
  const obj = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).safeParse(parsed);
  if (!obj.success) throw new ConfigError(`GENGATE_CONFIG_FILE: ${path} must be a JSON object of strings, numbers and booleans`);
  return Object.fromEntries(Object.entries(obj.data).map(([k, v]) => [k, String(v)]));
}

/**
 * Values that must never appear in any output: Stripe keys, the S3 secret key and the passwords inside DATABASE_URL and
 * SMTP_URL, whether or not they passed validation. The logger and the CLI's error output mask them.
 */
export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  let fromFile: Record<string, string> = {};
  try {
    if (env['GENGATE_CONFIG_FILE']) fromFile = fileValues(env['GENGATE_CONFIG_FILE']);
  } catch {
    // an unreadable file holds no value to mask
  }
  const values: Record<string, string | undefined> = { ...fromFile, ...env };
  const found: string[] = [];
  for (const key of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'S3_SECRET_ACCESS_KEY', 'METRICS_TOKEN']) {
    const v = values[key];
    if (v) found.push(v);
  }
  for (const key of ['DATABASE_URL', 'SMTP_URL']) {
    const v = values[key];
    if (!v) continue;
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@]*?:([^@/?#]*)@/i.exec(v);
    if (m?.[1]) {
      found.push(m[1]);
      try {
        found.push(decodeURIComponent(m[1]));
      } catch {
        // not percent-encoded
      }
    }
  }
  return [...new Set(found.filter((v) => v.length >= 4))];
}

/** Replaces every secret value in a text. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}

/**
 * Reads the configuration from environment variables, and from the JSON file named by GENGATE_CONFIG_FILE
 * (the environment wins). Throws a ConfigError listing every bad value, one per line.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): GengateConfig {
  const fromFile = env['GENGATE_CONFIG_FILE'] ? fileValues(env['GENGATE_CONFIG_FILE']) : {};
  const merged: Record<string, string> = { ...fromFile };
  // A JSON config file may say "role" as well as "ROLE".
  if (fromFile['role'] !== undefined && fromFile['ROLE'] === undefined) merged['ROLE'] = fromFile['role'];
  for (const key of Object.keys(envSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') merged[key] = v;
  }
  const parsed = envSchema.safeParse(merged);
  if (!parsed.success) {
    // The setting and what is wrong with it, never its value: a rejected value may be a secret.
    const lines = parsed.error.issues.map((i) => `${String(i.path[0] ?? '')}: ${i.message}`);
    throw new ConfigError(lines.join('\n'));
  }
  const c = parsed.data;
  let exporters: readonly TraceExporterName[];
  try {
    exporters = traceExporters(env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const role: ServerRole = c.ROLE ?? (c.RUN_WORKER ? 'all' : 'api');
  return {
    port: c.PORT,
    host: c.HOST,
    publicUrl: c.PUBLIC_URL ? c.PUBLIC_URL.replace(/\/+$/, '') : null,
    databaseUrl: c.DATABASE_URL ?? null,
    databaseSchema: c.DATABASE_SCHEMA,
    dataDir: resolve(cwd, c.GENGATE_DATA_DIR ?? '.gengate'),
    logLevel: c.LOG_LEVEL,
    trustProxy: c.TRUST_PROXY,
    openaiModelAliases: Object.fromEntries(c.OPENAI_MODEL_ALIASES),
    workerConcurrency: c.WORKER_CONCURRENCY,
    checkConcurrency: c.STATUS_CHECK_CONCURRENCY,
    markup: {
      defaultBp: parseMarkupFactor(c.PRICE_MARKUP) ?? MARKUP_ONE,
      providers: new Map([...c.PRICE_MARKUP_OVERRIDES].filter(([k]) => !k.includes('.'))),
      models: new Map([...c.PRICE_MARKUP_OVERRIDES].filter(([k]) => k.includes('.'))),
    },
    routedModels: c.ROUTED_MODELS,
    scheduling: {
      maxRunningPerUser: { chat: c.TASKS_RUNNING_PER_USER_CHAT, image: c.TASKS_RUNNING_PER_USER_IMAGE, video: c.TASKS_RUNNING_PER_USER_VIDEO },
      maxQueuedPerUser: c.TASKS_QUEUED_PER_USER,
      maxAttempts: c.TASK_MAX_ATTEMPTS,
    },
    providerLimits: (id) => ({ maxConcurrent: c.PROVIDER_MAX_CONCURRENCY.get(id) ?? null, maxPerMinute: c.PROVIDER_MAX_PER_MINUTE.get(id) ?? null }),
    role,
    runWorker: role !== 'api',
    shutdownGraceMs: c.SHUTDOWN_GRACE_MS,
    deadlineSeconds: { chat: c.DEADLINE_CHAT_SECONDS, image: c.DEADLINE_IMAGE_SECONDS, video: c.DEADLINE_VIDEO_SECONDS },
    sandboxLatencyMs: c.SANDBOX_LATENCY_MS ?? null,
    traceExporters: exporters,
    sandboxLatencyJitterMs: c.SANDBOX_LATENCY_JITTER_MS,
    payments:
      c.PAYMENT_PROCESSOR === 'stripe'
        ? {
            processor: 'stripe',
            secretKey: c.STRIPE_SECRET_KEY ?? '',
            webhookSecret: c.STRIPE_WEBHOOK_SECRET ?? '',
            apiUrl: c.STRIPE_API_URL ?? null,
            successUrl: c.STRIPE_SUCCESS_URL ?? null,
            cancelUrl: c.STRIPE_CANCEL_URL ?? null,
          }
        : { processor: 'manual' },
    callbacks: {
      allowPrivate: c.CALLBACK_ALLOW_PRIVATE,
      timeoutMs: c.CALLBACK_TIMEOUT_MS,
      retryDelaySeconds: c.CALLBACK_RETRY_DELAY_SECONDS,
      concurrency: c.CALLBACK_CONCURRENCY,
      perUserConcurrency: c.CALLBACK_PER_USER_CONCURRENCY,
      attemptRetentionDays: c.CALLBACK_ATTEMPT_RETENTION_DAYS,
    },
    resultUrlTtlSeconds: c.RESULT_URL_TTL_SECONDS,
    fileAccess: c.FILE_ACCESS,
    maintenanceCron: c.MAINTENANCE_CRON,
    manualTopupExpiryHours: c.MANUAL_TOPUP_EXPIRY_HOURS,
    fetching: {
      allowPrivate: c.FETCH_ALLOW_PRIVATE,
      maxResultBytes: { chat: c.RESULT_MAX_BYTES_CHAT, image: c.RESULT_MAX_BYTES_IMAGE, video: c.RESULT_MAX_BYTES_VIDEO },
      maxInputBytes: c.INPUT_MAX_BYTES,
    },
    smtpUrl: c.SMTP_URL ?? null,
    mailFrom: c.MAIL_FROM,
    dashboard: dashboardSettings(c),
    ops: { metricsPort: c.METRICS_PORT ?? null, metricsToken: c.METRICS_TOKEN ?? null, maxQueuedJobs: c.MAX_QUEUED_JOBS, queueSampleIntervalMs: c.QUEUE_SAMPLE_INTERVAL_MS },
    retentionDays: c.RETENTION_DAYS ?? null,
    routeHealth: routeHealthSettings(c),
    storage: storageSettings(c),
    fileDelivery: fileDelivery(c),
  };
}
