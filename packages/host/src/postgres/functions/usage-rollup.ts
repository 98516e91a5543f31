import { LATENCY_BOUNDS_SQL, LATENCY_BUCKET_COUNT, NO_KEY_UUID } from '../migrations/023-usage-rollups.js';
import type { SqlFunction } from './sql-function.js';

/**
 * Deferred constraint trigger on tasks (023, 027, 032): an ended task's usage appended to usage_rollup_pending
 * at the settling transaction's COMMIT (when its usage transaction is there to be read), per hour, user, key,
 * model, provider and member; latency of successes bucketed over core's LATENCY_BUCKET_BOUNDS_MS. Insert only:
 * ends wait on no shared row (gengate_fold_usage_pending folds the rows into the rollups).
 */
export const usageRollup: SqlFunction = {
  name: 'gengate_usage_rollup',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_usage_rollup() returns trigger
language plpgsql as $$
declare
  v_credits bigint;
  v_bucket integer;
  v_hist integer[];
begin
  if new.finished_at is null or new.status not in ('success', 'fail') then return null; end if;
  select coalesce(-sum(credits_micro), 0) into v_credits from ${schema}.transactions where task_id = new.id and payment_method = 'usage';
  v_hist := array_fill(0, array[${LATENCY_BUCKET_COUNT}]);
  if new.status = 'success' then
    v_bucket := width_bucket(greatest(0, floor(extract(epoch from (new.finished_at - new.created_at)) * 1000))::bigint, ${LATENCY_BOUNDS_SQL}) + 1;
    v_hist[v_bucket] := 1;
  end if;

  -- 032: appended, insert only; gengate_fold_usage_pending moves it into the hourly and daily rows.
  insert into ${schema}.usage_rollup_pending (hour, user_id, api_key_id, model_id, provider, member_id, credits_micro, tasks, failures,
      input_tokens, output_tokens, images, video_ms, latency_hist)
    values (date_trunc('hour', new.finished_at, 'UTC'), new.user_id, coalesce(new.api_key_id, '${NO_KEY_UUID}'), new.model_id, split_part(new.model_id, '.', 1),
      coalesce(new.member_id, new.user_id), v_credits, 1,
      case when new.status = 'fail' then 1 else 0 end, coalesce(round((new.usage->>'inputTokens')::numeric), 0)::bigint, coalesce(round((new.usage->>'outputTokens')::numeric), 0)::bigint,
      coalesce(round((new.usage->>'images')::numeric), 0)::bigint, coalesce(round((new.usage->>'videoSeconds')::numeric * 1000), 0)::bigint, v_hist);
  return null;
end $$;`,
};
