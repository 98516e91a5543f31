import { z } from 'zod';
import { BUDGET_PERIODS } from '../model/api-key.js';
import { MODALITIES } from '../model/modality.js';
import { MICRO_PER_CREDIT } from '../util/money.js';
import { parseIpEntry } from './ip-whitelist.js';

export const MAX_WHITELIST_ENTRIES = 100;

const limit = z.number().int().min(1).max(1_000_000_000);
const ipEntry = z.string().max(64).refine((s) => parseIpEntry(s) !== null, 'must be an IPv4 or IPv6 address or CIDR range');
const name = z.string().trim().min(1).max(100);

export const MAX_ALLOWED_ENTRIES = 100;

/** Credits, positive, at most six decimals (1 micro-credit), like a balance alert's threshold. */
const spendLimit = z
  .number({ error: 'spend_limit must be a number (credits)' })
  .positive('spend_limit must be positive')
  .max(1_000_000_000)
  .refine((v) => Math.round(v * MICRO_PER_CREDIT) / MICRO_PER_CREDIT === v, 'spend_limit must have at most six decimals (1 micro-credit)');
const allowList = (what: string, entry: z.ZodType<string>) =>
  z.array(entry).min(1, `${what} must name at least one entry (null or absent: all)`).max(MAX_ALLOWED_ENTRIES);
const id = z.string().trim().min(1).max(200);

/** The spend controls a key can be given (docs/api-keys.md); null removes one. */
const controls = {
  spend_limit: spendLimit.nullable().optional(),
  budget_period: z.enum(BUDGET_PERIODS).optional(),
  soft_threshold_percent: z.number().int().min(1).max(100).nullable().optional(),
  allowed_models: allowList('allowed_models', id).nullable().optional(),
  allowed_providers: allowList('allowed_providers', id).nullable().optional(),
  allowed_modalities: allowList('allowed_modalities', z.enum(MODALITIES)).nullable().optional(),
  max_concurrent_tasks: z.number().int().min(1).max(100_000).nullable().optional(),
};

/** POST /api-keys body (docs/api.md). */
export const createApiKeySchema = z.strictObject({
  name,
  rate_limit_per_minute: limit.nullable().optional(),
  rate_limit_per_hour: limit.nullable().optional(),
  rate_limit_per_day: limit.nullable().optional(),
  ip_whitelist: z.array(ipEntry).max(MAX_WHITELIST_ENTRIES).optional(),
  ...controls,
});

/** PUT /api-keys/{id} body: any subset; null removes a limit; [] clears the whitelist. */
export const updateApiKeySchema = z
  .strictObject({
    name: name.optional(),
    rate_limit_per_minute: limit.nullable().optional(),
    rate_limit_per_hour: limit.nullable().optional(),
    rate_limit_per_day: limit.nullable().optional(),
    ip_whitelist: z.array(ipEntry).max(MAX_WHITELIST_ENTRIES).optional(),
    ...controls,
  })
  .refine((v) => Object.keys(v).length > 0, 'the body must change at least one field');

export type CreateApiKeyInput = z.infer<typeof createApiKeySchema>;
export type UpdateApiKeyInput = z.infer<typeof updateApiKeySchema>;
