import type { Migration } from './migration.js';

/*
 * Usage rollups (issue 22): per hour (UTC) × user × API key × model × provider, and the same per UTC day, the credits charged,
 * tasks ended, failures, tokens, images, milliseconds of video and a latency histogram, kept in the same
 * transaction as each task's settlement (two upserts: the hour's row and the day's). GET /usage reads them
 * (pg-usage-reader.ts): whole days from the daily table, the partial days at a range's ends from the hourly one.
 *
 * The trigger's function is in functions/usage-rollup.ts (its current form; this migration's body was removed
 * from it when functions/ became the functions' one home).
 *
 * Kept by a trigger on the task row, not by the money functions of 018 (which other work replaces): a
 * task that becomes `success` or `fail` (or is inserted as one) queues a deferred constraint trigger that
 * runs at COMMIT of the settling transaction, when the ledger's usage deduction for the task (written after
 * the task update inside gengate_finish_success, or by the unit-of-work path) is there to be read. Two
 * upserts per settlement; a rolled-back settlement never reaches them.
 *
 * The grain's key is (user_id, hour, api_key_id, model_id, provider). An API key belongs to one owner, so
 * an organization column can be added later beside user_id and filled from the key without changing the
 * grain or the upsert's conflict target. A task without a key is recorded under the nil UUID.
 *
 * The provider is the part of the model id before its first dot (the task row records no provider).
 * Latency: successful tasks only, from created_at to finished_at, whole milliseconds, bucketed by
 * width_bucket over the bounds of core's LATENCY_BUCKET_BOUNDS_MS (written out here: a migration never
 * changes; a test checks the two agree). 47 buckets: the array's element 1 is below 1 ms.
 */
export const LATENCY_BOUNDS_SQL =
  'array[1,2,3,4,6,8,12,16,23,32,46,64,91,128,182,256,363,512,725,1024,1449,2048,2897,4096,5793,8192,11586,16384,23171,32768,46341,65536,92682,131072,185364,262144,370728,524288,741456,1048576,1482911,2097152,2965821,4194304,5931642,8388608]::bigint[]';
export const LATENCY_BUCKET_COUNT = 47;
export const NO_KEY_UUID = '00000000-0000-0000-0000-000000000000';

const tokens = (t: string, field: string) => `coalesce(round((${t}.usage->>'${field}')::numeric), 0)::bigint`;
const videoMs = (t: string) => `coalesce(round((${t}.usage->>'videoSeconds')::numeric * 1000), 0)::bigint`;
const latencyMs = (t: string) => `greatest(0, floor(extract(epoch from (${t}.finished_at - ${t}.created_at)) * 1000))::bigint`;

const HIST_SUMS = (r: string) => Array.from({ length: LATENCY_BUCKET_COUNT }, (_, i) => `sum(${r}.latency_hist[${i + 1}])`).join(', ');

/**
 * Every ended task added to the rollups (the benchmark rebuilds its rollups with it): the hourly rows in
 * one INSERT … SELECT … GROUP BY, first summed per group and latency bucket (one cheap aggregate per task),
 * then pivoted into the histogram per group; the daily rows summed from the hourly ones.
 */
export const backfillSql = (schema: string) => `
insert into ${schema}.usage_rollups (hour, user_id, api_key_id, model_id, provider, credits_micro, tasks, failures,
    input_tokens, output_tokens, images, video_ms, latency_hist)
select hour, user_id, api_key_id, model_id, provider, sum(credits_micro), sum(tasks), sum(failures), sum(input_tokens), sum(output_tokens),
  sum(images), sum(video_ms), array[${Array.from({ length: LATENCY_BUCKET_COUNT }, (_, i) => `coalesce(sum(n) filter (where bucket = ${i}), 0)`).join(', ')}]::integer[]
from (
  select date_trunc('hour', t.finished_at, 'UTC') as hour, t.user_id, coalesce(t.api_key_id, '${NO_KEY_UUID}') as api_key_id, t.model_id,
    split_part(t.model_id, '.', 1) as provider, t.bucket,
    coalesce(-sum(x.credits_micro), 0) as credits_micro, count(*) as tasks, count(*) filter (where t.status = 'fail') as failures,
    sum(${tokens('t', 'inputTokens')}) as input_tokens, sum(${tokens('t', 'outputTokens')}) as output_tokens, sum(${tokens('t', 'images')}) as images,
    sum(${videoMs('t')}) as video_ms, count(*) filter (where t.status = 'success') as n
  from (select tt.*, case when tt.status = 'success' then width_bucket(${latencyMs('tt')}, ${LATENCY_BOUNDS_SQL}) end as bucket
        from ${schema}.tasks tt where tt.status in ('success', 'fail') and tt.finished_at is not null) t
  left join ${schema}.transactions x on x.task_id = t.id and x.payment_method = 'usage'
  group by 1, 2, 3, 4, 5, 6) per_bucket
group by 1, 2, 3, 4, 5;
insert into ${schema}.usage_rollups_daily (day, user_id, api_key_id, model_id, provider, credits_micro, tasks, failures,
    input_tokens, output_tokens, images, video_ms, latency_hist)
select (r.hour at time zone 'UTC')::date, r.user_id, r.api_key_id, r.model_id, r.provider, sum(r.credits_micro), sum(r.tasks), sum(r.failures),
  sum(r.input_tokens), sum(r.output_tokens), sum(r.images), sum(r.video_ms), array[${HIST_SUMS('r')}]::integer[]
from ${schema}.usage_rollups r
group by 1, 2, 3, 4, 5;`;

/** The rollup trigger on the task row (also used by the benchmark to time settlements with and without it). */
export const usageTriggersSql = (schema: string) => `
create constraint trigger tasks_usage_rollup_ended after update of status on ${schema}.tasks deferrable initially deferred
  for each row when (new.status in ('success', 'fail') and old.status not in ('success', 'fail'))
  execute function ${schema}.gengate_usage_rollup();
create constraint trigger tasks_usage_rollup_inserted after insert on ${schema}.tasks deferrable initially deferred
  for each row when (new.status in ('success', 'fail'))
  execute function ${schema}.gengate_usage_rollup();`;

export const usageRollups: Migration = {
  version: 23,
  name: 'usage rollups per hour and per day, user, key, model and provider, kept at settlement by a deferred trigger; backfilled',
  up: (schema) => `
create table ${schema}.usage_rollups (
  hour timestamptz not null,
  user_id uuid not null,
  api_key_id uuid not null,
  model_id text not null,
  provider text not null,
  credits_micro bigint not null,
  tasks bigint not null,
  failures bigint not null,
  input_tokens bigint not null,
  output_tokens bigint not null,
  images bigint not null,
  video_ms bigint not null,
  latency_hist integer[] not null check (cardinality(latency_hist) = ${LATENCY_BUCKET_COUNT}),
  primary key (user_id, hour, api_key_id, model_id, provider)
);
-- The operator's view across users reads by time.
create index usage_rollups_hour on ${schema}.usage_rollups (hour);
-- The same per UTC day: a range of whole days reads 24 times fewer rows (the reader takes the partial days at its ends from the hourly table).
create table ${schema}.usage_rollups_daily (
  day date not null,
  user_id uuid not null,
  api_key_id uuid not null,
  model_id text not null,
  provider text not null,
  credits_micro bigint not null,
  tasks bigint not null,
  failures bigint not null,
  input_tokens bigint not null,
  output_tokens bigint not null,
  images bigint not null,
  video_ms bigint not null,
  latency_hist integer[] not null check (cardinality(latency_hist) = ${LATENCY_BUCKET_COUNT}),
  primary key (user_id, day, api_key_id, model_id, provider)
);
create index usage_rollups_daily_day on ${schema}.usage_rollups_daily (day);
-- gengate_usage_rollup(): functions/usage-rollup.ts
${usageTriggersSql(schema)}
${backfillSql(schema)}
`,
};
