import { LATENCY_BOUNDS_SQL, LATENCY_BUCKET_COUNT, NO_KEY_UUID } from './023-usage-rollups.js';
import type { Migration } from './migration.js';

/*
 * Two changes that follow organizations (migration 025, docs/organizations.md):
 *
 * 1. Usage per member. The usage rollups of 023 (hourly and daily) gain `member_id`, the person who
 *    submitted the task: `coalesce(tasks.member_id, tasks.user_id)` (tasks.member_id is null for every task
 *    before organizations and for a personal organization's owner). Existing rows: member = user_id (every
 *    task they counted had no member). The member is the LAST column of the primary key, so the key's
 *    prefix (user_id, hour|day, …) still serves a range of one organization grouped by day and model as
 *    before; a `member` filter narrows the same index range. gengate_usage_rollup upserts on the new key.
 *
 * 2. A key's budget period change. key_spend counts a key's spend per (key, period_start), each hold in the
 *    period its submission fell in (migration 019). Changing `budget_period` (say `none` -> `day`) used to
 *    start the new period's row at zero although the key had spent in it: a key could spend its new daily
 *    limit on top of what it spent earlier that day. Now, in the transaction of the change, every hold of
 *    the key created since the new period's start moves into the new period (key_period_start restamped;
 *    019's hold trigger moves open holds' amounts), and the usage charges of the moved settled holds move
 *    from their old rows into the new row. key_spend then says for the current period what the key held
 *    and was charged since it started, and every hold still counts in exactly one row (the one its
 *    key_period_start names), so later settlements and releases keep the rows exact. Holds before the new
 *    period's start keep their rows (past periods: never read again for admission). The row's
 *    soft_alerted is kept when it existed (else false: the next submission at or past the threshold mails).
 *    "Since" is read on the database's clock: the new period's start at now(), against holds.created_at
 *    (also now() at the submission); the memory twin compares the task's createdAt with the process clock.
 *    The trigger takes the organization's slots lock before writing key_spend, like every other writer
 *    (ends; 019's soft-threshold write); the key store's update takes the account row lock first, like a
 *    revocation, so no submission of the key holds in between.
 *
 * The functions are in functions/ (their current forms; this migration's bodies were removed from it when
 * functions/ became their one home).
 */

const tokens = (t: string, field: string) => `coalesce(round((${t}.usage->>'${field}')::numeric), 0)::bigint`;
const videoMs = (t: string) => `coalesce(round((${t}.usage->>'videoSeconds')::numeric * 1000), 0)::bigint`;
const latencyMs = (t: string) => `greatest(0, floor(extract(epoch from (${t}.finished_at - ${t}.created_at)) * 1000))::bigint`;
const HIST_SUMS = (r: string) => Array.from({ length: LATENCY_BUCKET_COUNT }, (_, i) => `sum(${r}.latency_hist[${i + 1}])`).join(', ');

/**
 * Every ended task added to the (empty) rollups with its member: 023's backfill with the member in the
 * grain. The usage benchmark rebuilds its rollups with it.
 */
export const memberBackfillSql = (schema: string) => `
insert into ${schema}.usage_rollups (hour, user_id, api_key_id, model_id, provider, member_id, credits_micro, tasks, failures,
    input_tokens, output_tokens, images, video_ms, latency_hist)
select hour, user_id, api_key_id, model_id, provider, member_id, sum(credits_micro), sum(tasks), sum(failures), sum(input_tokens), sum(output_tokens),
  sum(images), sum(video_ms), array[${Array.from({ length: LATENCY_BUCKET_COUNT }, (_, i) => `coalesce(sum(n) filter (where bucket = ${i}), 0)`).join(', ')}]::integer[]
from (
  select date_trunc('hour', t.finished_at, 'UTC') as hour, t.user_id, coalesce(t.api_key_id, '${NO_KEY_UUID}') as api_key_id, t.model_id,
    split_part(t.model_id, '.', 1) as provider, coalesce(t.member_id, t.user_id) as member_id, t.bucket,
    coalesce(-sum(x.credits_micro), 0) as credits_micro, count(*) as tasks, count(*) filter (where t.status = 'fail') as failures,
    sum(${tokens('t', 'inputTokens')}) as input_tokens, sum(${tokens('t', 'outputTokens')}) as output_tokens, sum(${tokens('t', 'images')}) as images,
    sum(${videoMs('t')}) as video_ms, count(*) filter (where t.status = 'success') as n
  from (select tt.*, case when tt.status = 'success' then width_bucket(${latencyMs('tt')}, ${LATENCY_BOUNDS_SQL}) end as bucket
        from ${schema}.tasks tt where tt.status in ('success', 'fail') and tt.finished_at is not null) t
  left join ${schema}.transactions x on x.task_id = t.id and x.payment_method = 'usage'
  group by 1, 2, 3, 4, 5, 6, 7) per_bucket
group by 1, 2, 3, 4, 5, 6;
insert into ${schema}.usage_rollups_daily (day, user_id, api_key_id, model_id, provider, member_id, credits_micro, tasks, failures,
    input_tokens, output_tokens, images, video_ms, latency_hist)
select (r.hour at time zone 'UTC')::date, r.user_id, r.api_key_id, r.model_id, r.provider, r.member_id, sum(r.credits_micro), sum(r.tasks), sum(r.failures),
  sum(r.input_tokens), sum(r.output_tokens), sum(r.images), sum(r.video_ms), array[${HIST_SUMS('r')}]::integer[]
from ${schema}.usage_rollups r
group by 1, 2, 3, 4, 5, 6;`;

const memberColumnSql = (schema: string, table: string, period: string) => `
alter table ${schema}.${table} add column member_id uuid;
update ${schema}.${table} set member_id = user_id;
alter table ${schema}.${table} alter column member_id set not null;
alter table ${schema}.${table} drop constraint ${table}_pkey;
alter table ${schema}.${table} add primary key (user_id, ${period}, api_key_id, model_id, provider, member_id);`;

/** The trigger of a key's budget period change (see the header, 2; the function: functions/key-budget-period-changed.ts). */
const periodChangeSql = (schema: string) => `
create trigger api_keys_budget_period_changed after update of budget_period on ${schema}.api_keys
  for each row when (old.budget_period is distinct from new.budget_period)
  execute function ${schema}.gengate_key_budget_period_changed();`;

export const usageMembersAndKeyPeriodChange: Migration = {
  version: 27,
  name: 'usage rollups per member; a key budget period change counts what the key spent since the new period started',
  up: (schema) => `
${memberColumnSql(schema, 'usage_rollups', 'hour')}
${memberColumnSql(schema, 'usage_rollups_daily', 'day')}
-- gengate_usage_rollup(): functions/usage-rollup.ts (upserts on the new key)
${periodChangeSql(schema)}
`,
};
