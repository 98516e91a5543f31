import { resolve } from 'node:path';
import { MARKUP_ONE, parseMarkupFactor } from '@gengate/core/internal';
import { traceExporters, type TraceExporterName } from '../tracing/tracing-switch.js';
import { dashboardSettings } from '../dashboard/dashboard-settings.js';
import { routeHealthSettings } from '../postgres/route-health-settings.js';
import { fileDelivery, storageSettings } from '../storage/storage-settings.js';
import { envSchema } from './config-env.js';
import { ConfigError } from './config-error.js';
import { fileValues } from './config-file.js';
import type { GengateConfig, ServerRole } from './gengate-config.js';

export { ConfigError } from './config-error.js';
export { fileValues } from './config-file.js';
export { maskSecrets, secretValues } from './config-secrets.js';
export type { GengateConfig, ServerRole } from './gengate-config.js';

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
    idleMemoryRelease: c.IDLE_MEMORY_RELEASE,
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
    inlineResultMaxBytes: c.INLINE_RESULT_MAX_BYTES,
    routeHealth: routeHealthSettings(c),
    storage: storageSettings(c),
    fileDelivery: fileDelivery(c),
  };
}
