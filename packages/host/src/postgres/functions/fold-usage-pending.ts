import { LATENCY_BUCKET_COUNT } from '../migrations/023-usage-rollups.js';
import type { SqlFunction } from './sql-function.js';

const SUMS = ['credits_micro', 'tasks', 'failures', 'input_tokens', 'output_tokens', 'images', 'video_ms'] as const;
const HIST = `array[${Array.from({ length: LATENCY_BUCKET_COUNT }, (_, i) => `sum(p.latency_hist[${i + 1}])`).join(', ')}]::integer[]`;

/** One rollup table's upsert of the deleted pending rows `d`, grouped by `grain` (its first column computed by `first`). */
function upsert(table: string, first: { column: string; expr: string }): string {
  // Also the conflict target: ON CONFLICT infers the primary key from its columns, in any order.
  const grain = [first.column, 'user_id', 'api_key_id', 'model_id', 'provider', 'member_id'];
  return `insert into ${table} as r (${grain.join(', ')}, ${SUMS.join(', ')}, latency_hist)
    select ${first.expr}, p.user_id, p.api_key_id, p.model_id, p.provider, p.member_id, ${SUMS.map((c) => `sum(p.${c})`).join(', ')}, ${HIST}
    from d p group by 1, 2, 3, 4, 5, 6
    on conflict (${grain.join(', ')}) do update set
      ${SUMS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', ')},
      latency_hist = array(select a + b from unnest(r.latency_hist, excluded.latency_hist) with ordinality as x(a, b, i) order by i)`;
}

/**
 * Moves every committed usage_rollup_pending row (032) into the hourly and daily rollups, in one statement
 * (the deletion and both upserts commit together, so a reader sees each task's usage in the pending rows
 * or in the rollups, never both and never neither). Folds run one at a time (a transaction-scoped advisory
 * lock; a fold that finds it taken returns -1 and leaves the rows to the one running). The sums are additive,
 * so a fold commutes with every end. Returns how many pending rows it folded.
 */
export const foldUsagePending: SqlFunction = {
  name: 'gengate_fold_usage_pending',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_fold_usage_pending() returns integer
language plpgsql as $$
declare
  n integer;
begin
  if not pg_try_advisory_xact_lock(hashtextextended('gengate-usage-fold:${schema}', 0)) then return -1; end if;
  with d as (delete from ${schema}.usage_rollup_pending returning *),
  h as (${upsert(`${schema}.usage_rollups`, { column: 'hour', expr: 'p.hour' })} returning 1),
  dd as (${upsert(`${schema}.usage_rollups_daily`, { column: 'day', expr: `(p.hour at time zone 'UTC')::date` })} returning 1)
  select count(*) into n from d;
  return n;
end $$;`,
};
