import { z } from 'zod';
import { parseIpEntry } from './ip-whitelist.js';

export const MAX_WHITELIST_ENTRIES = 100;

const limit = z.number().int().min(1).max(1_000_000_000);
const ipEntry = z.string().max(64).refine((s) => parseIpEntry(s) !== null, 'must be an IPv4 or IPv6 address or CIDR range');
const name = z.string().trim().min(1).max(100);

/** POST /api-keys body (docs/api.md). */
export const createApiKeySchema = z.strictObject({
  name,
  rate_limit_per_minute: limit.nullable().optional(),
  rate_limit_per_hour: limit.nullable().optional(),
  rate_limit_per_day: limit.nullable().optional(),
  ip_whitelist: z.array(ipEntry).max(MAX_WHITELIST_ENTRIES).optional(),
});

/** PUT /api-keys/{id} body: any subset; null removes a limit; [] clears the whitelist. */
export const updateApiKeySchema = z
  .strictObject({
    name: name.optional(),
    rate_limit_per_minute: limit.nullable().optional(),
    rate_limit_per_hour: limit.nullable().optional(),
    rate_limit_per_day: limit.nullable().optional(),
    ip_whitelist: z.array(ipEntry).max(MAX_WHITELIST_ENTRIES).optional(),
  })
  .refine((v) => Object.keys(v).length > 0, 'the body must change at least one field');

export type CreateApiKeyInput = z.infer<typeof createApiKeySchema>;
export type UpdateApiKeyInput = z.infer<typeof updateApiKeySchema>;
