import { z } from 'zod';
import { USAGE_GROUPS, type UsageDimension } from './usage.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest range a usage query may span. */
export const MAX_USAGE_RANGE_DAYS = 366;
/** The longest range grouped by hour (at most 744 hourly rows per other group). */
export const MAX_HOURLY_RANGE_DAYS = 31;
/** The range when `from` is not given: 30 days before `to`. */
export const DEFAULT_USAGE_RANGE_DAYS = 30;

const instant = z.union([z.iso.date(), z.iso.datetime({ offset: true, local: false })], {
  error: 'expected an ISO 8601 date (2026-11-01) or date-time with Z or an offset (2026-11-01T00:00:00Z)',
});

/** The query string of GET /usage (and of the operator's usage, with `user_id`). Unknown parameters are refused. */
export const usageQuerySchema = z.strictObject({
  from: instant.optional(),
  to: instant.optional(),
  group_by: z.string().optional(),
  model: z.string().min(1).max(200).optional(),
  key_id: z.uuid().optional(),
  user_id: z.uuid().optional(),
  provider: z.string().min(1).max(100).optional(),
  member: z.uuid().optional(),
  format: z.enum(['json', 'csv']).optional(),
});
export type UsageQueryInput = z.infer<typeof usageQuerySchema>;

/** A query's checked range and groups, or the refusal's parameter and message. */
export type UsageQueryCheck =
  | { readonly ok: true; readonly from: Date; readonly to: Date; readonly groupBy: readonly UsageDimension[] }
  | { readonly ok: false; readonly param: string; readonly message: string };

const floorHour = (t: number): number => Math.floor(t / HOUR_MS) * HOUR_MS;
const ceilHour = (t: number): number => Math.ceil(t / HOUR_MS) * HOUR_MS;

/**
 * The range (from rounded down, to rounded up to the hour, UTC; defaults: to = now, from = to - 30 days)
 * and the groups (one or two, comma-separated; default `day`). `allowed` are the dimensions this caller
 * may group by (the operator adds `user`).
 */
export function checkUsageQuery(input: UsageQueryInput, now: Date, allowed: readonly UsageDimension[] = USAGE_GROUPS): UsageQueryCheck {
  const groups = (input.group_by ?? 'day').split(',').map((g) => g.trim());
  for (const g of groups) {
    if (!(allowed as readonly string[]).includes(g)) {
      return { ok: false, param: 'group_by', message: `group_by: \`${g}\` is not a dimension; use one or two of ${allowed.join(', ')}, comma-separated.` };
    }
  }
  if (groups.length > 2) return { ok: false, param: 'group_by', message: 'group_by: at most two dimensions.' };
  if (new Set(groups).size !== groups.length) return { ok: false, param: 'group_by', message: 'group_by: a dimension is named twice.' };
  if (groups.includes('day') && groups.includes('hour')) return { ok: false, param: 'group_by', message: 'group_by: `day` and `hour` together; choose one.' };
  const groupBy = groups as UsageDimension[];

  const to = input.to === undefined ? ceilHour(now.getTime()) : ceilHour(Date.parse(input.to));
  const from = input.from === undefined ? to - DEFAULT_USAGE_RANGE_DAYS * DAY_MS : floorHour(Date.parse(input.from));
  if (!(from < to)) return { ok: false, param: 'to', message: 'to: must be after from.' };
  const maxDays = groupBy.includes('hour') ? MAX_HOURLY_RANGE_DAYS : MAX_USAGE_RANGE_DAYS;
  if (to - from > maxDays * DAY_MS) {
    return { ok: false, param: 'from', message: `from: the range may span at most ${maxDays} days${groupBy.includes('hour') ? ' when grouped by hour' : ''}.` };
  }
  return { ok: true, from: new Date(from), to: new Date(to), groupBy };
}
