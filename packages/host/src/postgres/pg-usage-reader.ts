import { LATENCY_BUCKETS, type UsageDimension, type UsageGroupRow, type UsageQuery, type UsageReader } from '@gengate/core';
import { NO_KEY_UUID } from './migrations/023-usage-rollups.js';
import { toSafeInt, type Queryable } from './queryable.js';

/** Each dimension: the grouped expression over the rollups, and the columns it answers. */
const DIMENSIONS: Readonly<Record<UsageDimension, { readonly expr: string; readonly as: string }>> = {
  day: { expr: `to_char(r.hour at time zone 'UTC', 'YYYY-MM-DD')`, as: 'day' },
  hour: { expr: 'r.hour', as: 'hour' },
  model: { expr: 'r.model_id', as: 'model_id' },
  provider: { expr: 'r.provider', as: 'provider' },
  key: { expr: 'r.api_key_id', as: 'api_key_id' },
  user: { expr: 'r.user_id', as: 'user_id' },
  member: { expr: 'r.member_id', as: 'member_id' },
};

interface Row {
  day?: string;
  hour?: Date;
  model_id?: string;
  provider?: string;
  api_key_id?: string;
  key_name?: string | null;
  user_id?: string;
  user_email?: string | null;
  member_id?: string;
  member_email?: string | null;
  credits_micro: string;
  tasks: string;
  failures: string;
  input_tokens: string;
  output_tokens: string;
  images: string;
  video_ms: string;
  latency_hist: string;
}

const DAY_MS = 86_400_000;

/** `{1,2,3}` (an int8[] as text) as numbers. */
function parseHistogram(text: string): number[] {
  const inner = text.slice(1, -1);
  return inner === '' ? [] : inner.split(',').map((n) => toSafeInt(n));
}

/**
 * Reads the rollups of migration 023 (the member in their grain since 027): one statement, grouped in SQL, over the daily rows for the whole UTC
 * days of the range and the hourly rows for the hours at its ends (or the hourly rows only, grouped by
 * hour or within a day), and the pending rows of the ends not folded into them yet (032). The histogram is merged element by
 * element (47 sums over the array's subscripts), names sort by code point (`collate "C"`, as the memory
 * reader compares), a missing key sorts first.
 */
export class PgUsageReader implements UsageReader {
  constructor(
    private readonly db: Queryable,
    private readonly schema: string,
  ) {}

  async read(q: UsageQuery): Promise<readonly UsageGroupRow[]> {
    const values: unknown[] = [];
    const param = (v: unknown) => {
      values.push(v);
      return `$${values.length}`;
    };
    const filters: string[] = [];
    if (q.userId !== null) filters.push(`user_id = ${param(q.userId)}`);
    if (q.modelId !== undefined) filters.push(`model_id = ${param(q.modelId)}`);
    if (q.apiKeyId !== undefined) filters.push(`api_key_id = ${param(q.apiKeyId)}`);
    if (q.provider !== undefined) filters.push(`provider = ${param(q.provider)}`);
    if (q.memberId !== undefined) filters.push(`member_id = ${param(q.memberId)}`);
    const s = this.schema;
    const columns = 'user_id, api_key_id, model_id, provider, member_id, credits_micro, tasks, failures, input_tokens, output_tokens, images, video_ms, latency_hist';
    const hourly = (from: Date, to: Date) =>
      `select hour, ${columns} from ${s}.usage_rollups where ${[`hour >= ${param(from)}`, `hour < ${param(to)}`, ...filters].join(' and ')}`;
    // Whole UTC days inside the range come from the daily rows (24 times fewer), the hours at its ends from the hourly ones.
    const firstDay = Math.ceil(q.from.getTime() / DAY_MS) * DAY_MS;
    const lastDay = Math.floor(q.to.getTime() / DAY_MS) * DAY_MS;
    const parts =
      q.groupBy.includes('hour') || firstDay >= lastDay
        ? [hourly(q.from, q.to)]
        : [
            ...(q.from.getTime() < firstDay ? [hourly(q.from, new Date(firstDay))] : []),
            `select (day::timestamp at time zone 'UTC') as hour, ${columns} from ${s}.usage_rollups_daily where ${[
              `day >= ${param(new Date(firstDay).toISOString().slice(0, 10))}::date`,
              `day < ${param(new Date(lastDay).toISOString().slice(0, 10))}::date`,
              ...filters,
            ].join(' and ')}`,
            ...(lastDay < q.to.getTime() ? [hourly(new Date(lastDay), q.to)] : []),
          ];
    // 032: the ends not folded yet, as hourly rows of their own (a fold moves them in one transaction, so this
    // one statement counts each end once, pending or folded).
    parts.push(`select hour, ${columns} from ${s}.usage_rollup_pending where ${[`hour >= ${param(q.from)}`, `hour < ${param(q.to)}`, ...filters].join(' and ')}`);
    const dims = q.groupBy.map((g) => DIMENSIONS[g]);
    const select = dims.map((d) => `${d.expr} as ${d.as}`).join(', ');
    const hist = Array.from({ length: LATENCY_BUCKETS }, (_, i) => `sum(r.latency_hist[${i + 1}])`).join(', ');
    const order = q.groupBy
      .map((g) => (g === 'key' ? 'g.api_key_id nulls first' : g === 'hour' || g === 'user' || g === 'member' ? `g.${DIMENSIONS[g].as}` : `g.${DIMENSIONS[g].as} collate "C"`))
      .join(', ');
    const sql = `
with g as (
  select ${select}, sum(r.credits_micro) as credits_micro, sum(r.tasks) as tasks, sum(r.failures) as failures,
    sum(r.input_tokens) as input_tokens, sum(r.output_tokens) as output_tokens, sum(r.images) as images, sum(r.video_ms) as video_ms,
    array[${hist}]::bigint[]::text as latency_hist
  from (${parts.join('\n    union all ')}) r
  group by ${dims.map((_, i) => i + 1).join(', ')}
)
select g.*${q.groupBy.includes('key') ? ', k.name as key_name' : ''}${q.groupBy.includes('user') ? ', u.email as user_email' : ''}${q.groupBy.includes('member') ? ', m.email as member_email' : ''}
from g${q.groupBy.includes('key') ? ` left join ${s}.api_keys k on k.id = g.api_key_id` : ''}${q.groupBy.includes('user') ? ` left join ${s}.users u on u.id = g.user_id` : ''}${q.groupBy.includes('member') ? ` left join ${s}.users m on m.id = g.member_id` : ''}
order by ${order}`;
    const { rows } = await this.db.query<Row>(sql, values);
    return rows.map((r) => {
      const key = r.api_key_id === undefined ? {} : r.api_key_id === NO_KEY_UUID ? { apiKeyId: null, keyName: null } : { apiKeyId: r.api_key_id, keyName: r.key_name ?? null };
      return {
        ...(r.day === undefined ? {} : { day: r.day }),
        ...(r.hour === undefined ? {} : { hour: r.hour }),
        ...(r.model_id === undefined ? {} : { modelId: r.model_id }),
        ...(r.provider === undefined ? {} : { provider: r.provider }),
        ...key,
        ...(r.user_id === undefined ? {} : { userId: r.user_id, userEmail: r.user_email ?? null }),
        ...(r.member_id === undefined ? {} : { memberId: r.member_id, memberEmail: r.member_email ?? null }),
        counts: {
          creditsMicro: toSafeInt(r.credits_micro),
          tasks: toSafeInt(r.tasks),
          failures: toSafeInt(r.failures),
          inputTokens: toSafeInt(r.input_tokens),
          outputTokens: toSafeInt(r.output_tokens),
          images: toSafeInt(r.images),
          videoMs: toSafeInt(r.video_ms),
          latencyHistogram: parseHistogram(r.latency_hist),
        },
      };
    });
  }
}
