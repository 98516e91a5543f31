import { BOSS_SCHEMA } from '../boss-queues.js';
import { DELTA_COLUMNS } from '../migrations/020-account-pending.js';
import { jobEnd } from './end-job.js';
import { END_COUNTS, queuedOf } from './count-active-tasks.js';
import { END_SPEND, endSpendPending } from './spend-triggers.js';
import type { SqlFunction } from './sql-function.js';
import { slotsLock } from './slots-lock.js';

/**
 * The account's deltas of the items `ended` (with their holds `held`), one row per user: the charges, the
 * holds settled and the unfinished counts the ends take away (the count trigger's rule: an admitted task
 * counts as running, any other as queued; an ended task was 'generating').
 */
function accountDeltas(): string {
  const count = (modality: string, admitted: boolean) =>
    `count(*) filter (where e.modality = '${modality}' and ${admitted ? '' : 'not '}e.admitted)`;
  const value: Record<(typeof DELTA_COLUMNS)[number], string> = {
    balance_micro: 'coalesce(sum(h.charge), 0)',
    held_micro: 'coalesce(sum(h.amount_micro), 0)',
    running_chat: count('chat', true),
    running_image: count('image', true),
    running_video: count('video', true),
    queued_chat: count('chat', false),
    queued_image: count('image', false),
    queued_video: count('video', false),
  };
  return `select e.user_id, ${DELTA_COLUMNS.map((c) => `${value[c]} as ${c}`).join(', ')}
      from ended e left join held h on h.k = e.k group by e.user_id`;
}

/**
 * The successes of the items `v_items` (indexes into the arrays) in ONE statement: each task still
 * 'generating' updated, its hold settled, its charge (never above the hold) written as its usage
 * transaction, and its user's account lowered by the charges, the holds and the counts: on the account row
 * itself (`locked`: the caller holds it) or appended to account_pending (folded by the next holder of the
 * account lock, 020). The count trigger leaves the tasks' update to this statement (END_COUNTS); off the
 * account row, so do the spend triggers the holds and charges, appended by the statement one row per spend
 * row (END_SPEND, endSpendPending). The items that ended are put in `into`.
 */
function endItems(schema: string, locked: boolean, into: string): string {
  const account = locked
    ? `update ${schema}.accounts a set ${DELTA_COLUMNS.map((c) => `${c} = a.${c} - d.${c}`).join(', ')}
      from (${accountDeltas()}) d where a.user_id = d.user_id`
    : `insert into ${schema}.account_pending (user_id, ${DELTA_COLUMNS.join(', ')})
      select d.user_id, ${DELTA_COLUMNS.map((c) => `-d.${c}`).join(', ')} from (${accountDeltas()}) d`;
  // Off the account row, the spend rows' pending rows too: one per spend row for the batch (END_SPEND).
  const spend = locked ? [] : endSpendPending(schema, 'held');
  const settings = locked ? [END_COUNTS] : [END_COUNTS, END_SPEND];
  return `
    ${settings.map((g) => `perform set_config('${g}', 'on', true);`).join(' ')}
    with ended as (
      update ${schema}.tasks t set status = 'success', outputs = p_outputs[x.k], warnings = p_warnings[x.k],
          charged_micro = p_charged_micro[x.k], cost_micro = p_cost_micro[x.k], reported_cost_micro = p_reported_cost_micro[x.k],
          usage = p_usage[x.k], upstream_metadata = p_metadata[x.k], progress = null, finished_at = p_at[x.k],
          output_bodies = p_output_bodies[x.k]::bytea[]
        from unnest(v_items) as x(k)
        where t.id = p_task_ids[x.k] and t.status = 'generating'
        returning x.k, t.id, t.user_id, t.modality, t.admitted),
    held as (
      update ${schema}.holds h set state = 'settled', updated_at = now()
        from ended e where h.task_id = e.id and h.state = 'held'
        returning e.k, e.id, e.user_id as task_user_id, h.user_id, h.api_key_id, h.key_period_start, h.member_id, h.member_period_start,
          h.amount_micro, least(p_charged_micro[e.k], h.amount_micro) as charge),
    charged as (
      insert into ${schema}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, task_id, description)
        select p_transaction_ids[h.k], h.task_user_id, -h.charge, round(abs(h.charge)::numeric / 100)::bigint, 'usage', 'completed', h.id, p_descriptions[h.k]
        from held h),${spend.map((sql, i) => `
    spend_${i} as (${sql}),`).join('')}
    account as (${account})
    select coalesce(array_agg(e.k), '{}') into ${into} from ended e;
    ${settings.map((g) => `perform set_config('${g}', 'off', true);`).join(' ')}`;
}

/**
 * The successes of one batch (PgTaskCompletion's SuccessBatch: the worker's ends of one event-loop turn) in
 * one transaction, item for item what gengate_finish_success did per task until then, with each kind of write
 * made once for the batch (the task updates, the holds, the usage transactions, the account's deltas, the
 * callback jobs, the pg-boss jobs removed): an insert's or update's executor start, trigger calls and
 * foreign-key checks were paid per task and statement.
 *
 * The arrays are the items' arguments, element by element, in gengate_finish_success's order (`p_boss` the
 * same for all). The answer is one row per item (`item`: its 1-based position), the report
 * gengate_finish_success answers. A task no longer 'generating' (or unknown) answers `ended: false`, as does
 * a task repeated in the batch after its first item.
 *
 * Locks, in user order (the callers sort the items by user, task): a user with balance alerts has the
 * account row locked and its items ended one at a time, each with its alerts and the admission of its queued
 * tasks right after it (the locked path of 018, unchanged); every other user has the slots lock shared to
 * the commit, and its items are ended together with the other such users' (020's unlocked path); a queued
 * task of theirs is reported (`admitAfter`) on the last item of its user and modality, once.
 */
export const finishSuccesses: SqlFunction = {
  name: 'gengate_finish_successes',
  identityArgs:
    'uuid[], jsonb[], jsonb[], bigint[], bigint[], bigint[], jsonb[], jsonb[], timestamptz[], text[], uuid[], integer[], text, text[], uuid[], integer[], text[]',
  sql: (schema) => `
create or replace function ${schema}.gengate_finish_successes(
  p_task_ids uuid[], p_outputs jsonb[], p_warnings jsonb[], p_charged_micro bigint[], p_cost_micro bigint[],
  p_reported_cost_micro bigint[], p_usage jsonb[], p_metadata jsonb[], p_at timestamptz[], p_descriptions text[],
  p_transaction_ids uuid[], p_max_running integer[], p_boss text, p_job_queues text[], p_job_ids uuid[],
  p_job_attempts integer[], p_output_bodies text[]
) returns table (item integer, report jsonb)
language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  n integer := coalesce(cardinality(p_task_ids), 0);
  v_user uuid[];
  v_modality text[];
  v_callback boolean[];
  v_locked_users uuid[] := '{}';
  v_items integer[];
  v_done integer[];
  v_ended boolean[] := array_fill(false, array[n]);
  v_generate integer[] := array_fill(0, array[n]);
  v_mail integer[] := array_fill(0, array[n]);
  v_admit_after boolean[] := array_fill(false, array[n]);
  v_k integer;
  v_u uuid;
  g record;
begin
  if n = 0 then return; end if;
  -- The pg-boss jobs running these ends, removed (fenced: only the attempt the worker fetched), each by its
  -- primary key: a join of the table with unnest, planned once for the session (force_generic_plan),
  -- scanned the job table whenever its statistics were older than its rows (2,600 rows read for one job).
  if p_boss = '${BOSS_SCHEMA}' then
    for v_k in 1..n loop
      ${jobEnd('remove', BOSS_SCHEMA, 'job', { queue: 'p_job_queues[v_k]', id: 'p_job_ids[v_k]', attempt: 'p_job_attempts[v_k]' })};
    end loop;
  elsif p_boss is not null then
    for v_k in 1..n loop
      perform ${schema}.gengate_remove_job(p_boss, p_job_queues[v_k], p_job_ids[v_k], p_job_attempts[v_k]);
    end loop;
  end if;

  -- Each task by its primary key (a lateral lookup per item, not a join the generic plan may make a scan of
  -- the table: it did, on a table whose statistics were older than its rows).
  select array_agg(t.user_id order by x.k), array_agg(t.modality order by x.k), array_agg(t.callback_url is not null order by x.k)
    into v_user, v_modality, v_callback
    from unnest(p_task_ids) with ordinality as x(id, k)
    left join lateral (select t.user_id, t.modality, t.callback_url from ${schema}.tasks t where t.id = x.id limit 1) t on true;

  for v_u in select distinct u.id from unnest(v_user) as u(id) where u.id is not null order by u.id loop
    if exists (select 1 from ${schema}.balance_alerts a where a.user_id = v_u) then
      perform 1 from ${schema}.accounts a where a.user_id = v_u for update;
      v_locked_users := v_locked_users || v_u;
    else
      ${slotsLock('v_u', 'shared')}
    end if;
  end loop;

  -- The locked path, item by item: the end, the user's alerts, the admission of its queued tasks.
  for v_k in 1..n loop
    continue when v_user[v_k] is null or not (v_user[v_k] = any(v_locked_users));
    v_items := array[v_k];${endItems(schema, true, 'v_done')}
    continue when cardinality(v_done) = 0;
    v_ended[v_k] := true;
    v_mail[v_k] := ${schema}.gengate_check_alerts(v_user[v_k], p_boss);
    v_generate[v_k] := ${schema}.gengate_admit_queued(v_user[v_k], v_modality[v_k], p_max_running[v_k], p_boss);
  end loop;

  -- The unlocked path, all its items in one pass.
  select array_agg(x.k) into v_items from generate_series(1, n) as x(k)
    where v_user[x.k] is not null and not (v_user[x.k] = any(v_locked_users));
  if v_items is not null then
    perform set_config('gengate.defer_account', 'on', true);${endItems(schema, false, 'v_done')}
    perform set_config('gengate.defer_account', 'off', true);
    foreach v_k in array v_done loop v_ended[v_k] := true; end loop;
    -- The account row's own queued count first: account_pending only ever lowers a queued count, so when
    -- the row counts none queued there is none, and account_pending is not read.
    for g in select v_user[x.k] as user_id, v_modality[x.k] as modality, max(x.k) as k from unnest(v_done) as x(k) group by 1, 2 loop
      if exists (select 1 from ${schema}.accounts a where a.user_id = g.user_id and ${queuedOf('a', 'g.modality')} > 0) then
        v_admit_after[g.k] := exists (select 1 from ${schema}.account_totals a where a.user_id = g.user_id and ${queuedOf('a', 'g.modality')} > 0);
      end if;
    end loop;
  end if;

  -- The callbacks' jobs, one statement for the batch.
  select array_agg(x.k) into v_items from generate_series(1, n) as x(k) where v_ended[x.k] and v_callback[x.k];
  if v_items is not null then
    perform ${schema}.gengate_enqueue_jobs(p_boss, 'gengate-callback',
      array_fill(null::uuid, array[cardinality(v_items)]),
      array(select jsonb_build_object('taskId', p_task_ids[x.k]) from unnest(v_items) with ordinality as x(k, o) order by x.o),
      array(select v_user[x.k]::text from unnest(v_items) with ordinality as x(k, o) order by x.o),
      array_fill(null::text, array[cardinality(v_items)]));
  end if;

  return query select x.k, case when v_ended[x.k] then jsonb_build_object('ended', true, 'generate', v_generate[x.k],
      'callback', case when v_callback[x.k] then 1 else 0 end, 'alertMail', v_mail[x.k], 'admitAfter', v_admit_after[x.k],
      'userId', v_user[x.k], 'modality', v_modality[x.k]) else jsonb_build_object('ended', false) end
    from generate_series(1, n) as x(k);
end $$;`,
};
