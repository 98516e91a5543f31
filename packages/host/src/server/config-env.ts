import { parseIpEntry, parseMarkupFactor, routedModelDeclarationsSchema } from '@gengate/core/internal';
import { z } from 'zod';
import { bool, int } from '../env-values.js';
import { DEFAULT_SCHEMA, SCHEMA_NAME } from '../postgres/schema.js';
import { DASHBOARD_ENV } from '../dashboard/dashboard-settings.js';
import { ROUTE_HEALTH_ENV, routeHealthIssues } from '../postgres/route-health-settings.js';
import { STORAGE_ENV, storageIssues } from '../storage/storage-settings.js';

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

/** Every environment variable the server reads, each checked (with its default where it has one); config.ts turns them into a GengateConfig. */
export const envSchema = z.object({
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
  WORKER_CONCURRENCY: int(1, 256).default(32),
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
  /** The standalone process's idle memory release (ops/idle-memory-release.ts; docs/deployment.md, "Memory"). */
  IDLE_MEMORY_RELEASE: bool.default(true),
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
  INLINE_RESULT_MAX_BYTES: int(0, 1024 * 1024).default(4096),
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
