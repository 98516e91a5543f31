import type { Migration } from './migration.js';

/*
 * The money rules on PostgreSQL, one home each (migration 018). The PostgreSQL implementations of the
 * TaskIntake and TaskCompletion ports (PgTaskIntake, PgTaskCompletion) only call these functions; the
 * unit-of-work implementations in core are the same rules for memory and custom stores, and the contract
 * suite compares the two.
 *
 *   gengate_enqueue_job        a pg-boss job row, the one boss.send() inserts (pg-boss 12.35 insertJobs,
 *                              queue notify off): every queue setting read from the queue's row.
 *   gengate_complete_job       the fetched attempt of a job completed as pg-boss's own complete() does
 *                              (fenced: a job no longer active under that attempt is left alone).
 *   gengate_admit_queued       the user's queued tasks admitted into the free running slots, oldest
 *                              first, each with its generation job.
 *   gengate_check_alerts       an armed alert crossed downwards disarms and gets ONE mail job; a disarmed
 *                              alert whose threshold the balance is back at re-arms.
 *   gengate_submit_task        idempotency window, hold, key revocation check, admission or queue, the
 *                              task, its generation job only when admitted, the idempotency record.
 *   gengate_finish_success     the task, the charge (never above the hold) with the hold settled, alerts,
 *                              callback job, admission of the next queued task, the job completed.
 *   gengate_finish_fail        the task, the hold released, callback job, admission of the next queued
 *                              task, the job completed (failure, cancel, sweep, exhausted jobs).
 *
 * Queue names are written here as the host names them (jobs are stored under them, so they never change):
 * gengate-generate, gengate-callback, gengate-alert-mail. The pg-boss schema is a parameter (null: a
 * process without a job queue; a job it would need raises GGNJQ).
 *
 * Lock order as before: the user's account row first, then the task rows (the counts trigger of 012).
 */

const enqueueJobSql = (schema: string) => `
create or replace function ${schema}.gengate_enqueue_job(
  p_boss text, p_queue text, p_id uuid, p_data jsonb, p_group_id text, p_group_tier text
) returns void language plpgsql as $$
declare
  tbl text;
begin
  if p_boss is null then
    raise exception using errcode = 'GGNJQ', message = 'gengate: this process was started without a job queue';
  end if;
  execute format('select table_name from %I.queue where name = $1', p_boss) into tbl using p_queue;
  if tbl is null then
    raise exception using errcode = 'GGNJQ', message = format('gengate: no pg-boss queue %s', p_queue);
  end if;
  -- Column for column what pg-boss's insertJobs writes for send(queue, data, { id, group }).
  execute format($q$
    insert into %1$I.%2$I (id, name, data, priority, start_after, created_on, singleton_key, singleton_on, group_id, group_tier,
      expire_seconds, deletion_seconds, keep_until, retry_limit, retry_delay, retry_backoff, retry_delay_max, policy, dead_letter,
      heartbeat_seconds, blocked, blocking, pending_dependencies)
    select coalesce($1, gen_random_uuid()), q.name, $2, 0, j.now, j.now, null, null, $3, $4,
      q.expire_seconds, q.deletion_seconds, j.now + (q.retention_seconds * interval '1s'), q.retry_limit, q.retry_delay,
      coalesce(q.retry_backoff, false), q.retry_delay_max, q.policy, q.dead_letter, q.heartbeat_seconds, false, false, 0
    from %1$I.queue q, (select %1$I.job_now() + cast('0' as interval) as now) j
    where q.name = $5
    on conflict do nothing$q$, p_boss, tbl)
    using p_id, p_data, p_group_id, p_group_tier, p_queue;
end $$;`;

const completeJobSql = (schema: string) => `
create or replace function ${schema}.gengate_complete_job(p_boss text, p_queue text, p_id uuid, p_attempt integer) returns void language plpgsql as $$
declare
  tbl text;
begin
  if p_id is null or p_boss is null then return; end if;
  execute format('select table_name from %I.queue where name = $1', p_boss) into tbl using p_queue;
  if tbl is null then return; end if;
  -- pg-boss's completeJobs with its attempt fence: only the attempt the worker fetched, only while active.
  execute format($q$
    update %1$I.%2$I set completed_on = %1$I.job_now(), state = 'completed', output = null
    where name = $1 and id = $2 and state = 'active' and retry_count = $3$q$, p_boss, tbl)
    using p_queue, p_id, p_attempt;
end $$;`;

const admitQueuedSql = (schema: string) => `
create or replace function ${schema}.gengate_admit_queued(p_user uuid, p_modality text, p_max_running integer, p_boss text)
returns integer language plpgsql as $$
declare
  running integer;
  n integer := 0;
  v_task uuid;
begin
  select case p_modality when 'chat' then running_chat when 'image' then running_image else running_video end
    into running from ${schema}.accounts where user_id = p_user;
  if coalesce(p_max_running - running, 0) <= 0 then return 0; end if;
  for v_task in
    with admitted as (
      update ${schema}.tasks set admitted = true where tasks.id in (
        select t.id from ${schema}.tasks t where t.user_id = p_user and t.modality = p_modality and t.status = 'waiting' and not t.admitted
        order by t.created_at, t.id limit p_max_running - running for update skip locked)
      returning tasks.id, tasks.created_at)
    select a.id from admitted a order by a.created_at, a.id
  loop
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-generate', gen_random_uuid(), jsonb_build_object('taskId', v_task), null, null);
    n := n + 1;
  end loop;
  return n;
end $$;`;

const checkAlertsSql = (schema: string) => `
create or replace function ${schema}.gengate_check_alerts(p_user uuid, p_boss text) returns integer language plpgsql as $$
declare
  balance bigint;
  a record;
  mails integer := 0;
begin
  select balance_micro into balance from ${schema}.accounts where user_id = p_user;
  if balance is null then return 0; end if;
  for a in select id, armed, threshold_micro from ${schema}.balance_alerts where user_id = p_user order by created_at, id loop
    if a.armed and balance < a.threshold_micro then
      update ${schema}.balance_alerts set armed = false where id = a.id;
      perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-alert-mail', gen_random_uuid(),
        jsonb_build_object('alertId', a.id, 'balanceMicro', balance), null, null);
      mails := mails + 1;
    elsif not a.armed and balance >= a.threshold_micro then
      update ${schema}.balance_alerts set armed = true where id = a.id;
    end if;
  end loop;
  return mails;
end $$;`;

const submitTaskSql = (schema: string) => `
create or replace function ${schema}.gengate_submit_task(
  p_task_id uuid, p_user_id uuid, p_api_key_id uuid, p_model_id text, p_modality text, p_request jsonb,
  p_callback_url text, p_quoted_micro bigint, p_quoted_cost_micro bigint,
  p_max_running integer, p_max_queued integer,
  p_boss text, p_job_id uuid, p_provider_id text,
  p_idempotency_key text, p_request_hash text, p_response jsonb
) returns boolean language plpgsql as $$
declare
  earlier record;
  n_admitted integer;
  n_queued integer;
  admit boolean;
begin
  if p_idempotency_key is not null then
    select request_hash, response into earlier from ${schema}.idempotency_keys
      where user_id = p_user_id and key = p_idempotency_key and created_at > now() - interval '24 hours' for update;
    if found then
      raise exception using errcode = 'GG409', message = 'gengate: idempotent replay',
        detail = json_build_object('request_hash', earlier.request_hash, 'response', earlier.response)::text;
    end if;
  end if;

  insert into ${schema}.accounts (user_id) values (p_user_id) on conflict do nothing;
  -- The user's account row lock, held to the end of the transaction: admission counts cannot race, and
  -- the key check below sees a revocation that committed while this waited (a revoke takes this lock).
  perform 1 from ${schema}.accounts where user_id = p_user_id for update;
  -- A revoked key is refused before its user's balance is looked at (401, never 402), as over the unit of work.
  if p_api_key_id is not null and not exists (select 1 from ${schema}.api_keys where id = p_api_key_id and revoked_at is null) then
    raise exception using errcode = 'GG401', message = 'gengate: API key revoked';
  end if;
  update ${schema}.accounts set held_micro = held_micro + p_quoted_micro
    where user_id = p_user_id and balance_micro - held_micro >= p_quoted_micro
    returning case p_modality when 'chat' then running_chat when 'image' then running_image else running_video end,
              case p_modality when 'chat' then queued_chat when 'image' then queued_image else queued_video end
    into n_admitted, n_queued;
  if not found then
    raise exception using errcode = 'GG402', message = 'gengate: insufficient credits';
  end if;

  admit := n_admitted < p_max_running;
  if not admit and n_queued >= p_max_queued then
    raise exception using errcode = 'GG429', message = 'gengate: queue full',
      detail = json_build_object('admitted', n_admitted, 'queued', n_queued)::text;
  end if;

  insert into ${schema}.tasks (id, user_id, api_key_id, model_id, modality, status, request, callback_url, quoted_micro, quoted_cost_micro, admitted)
    values (p_task_id, p_user_id, p_api_key_id, p_model_id, p_modality, 'waiting', p_request, p_callback_url, p_quoted_micro, p_quoted_cost_micro, admit);
  insert into ${schema}.holds (task_id, user_id, amount_micro, state) values (p_task_id, p_user_id, p_quoted_micro, 'held');
  -- An admitted task gets its generation job now; a queued one when a slot frees (gengate_admit_queued).
  -- No job id: a call the API process runs itself (a streamed chat).
  if admit and p_job_id is not null then
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-generate', p_job_id, jsonb_build_object('taskId', p_task_id), p_provider_id, p_provider_id);
  end if;

  if p_idempotency_key is not null then
    insert into ${schema}.idempotency_keys (user_id, key, request_hash, response) values (p_user_id, p_idempotency_key, p_request_hash, p_response)
      on conflict (user_id, key) do update set request_hash = excluded.request_hash, response = excluded.response, created_at = now()
      where idempotency_keys.created_at <= now() - interval '24 hours';
    if not found then
      raise exception using errcode = 'GG410', message = 'gengate: idempotency key raced';
    end if;
  end if;
  return admit;
end $$;`;

/** What a finish reports: whether it ended the task, and the jobs it added (their workers are woken after COMMIT). */
const FINISH_RESULT = `jsonb_build_object('ended', true, 'generate', n_generate, 'callback', n_callback, 'alertMail', n_mail)`;

const finishSuccessSql = (schema: string) => `
create or replace function ${schema}.gengate_finish_success(
  p_task_id uuid, p_outputs jsonb, p_warnings jsonb, p_charged_micro bigint, p_cost_micro bigint,
  p_reported_cost_micro bigint, p_usage jsonb, p_metadata jsonb, p_at timestamptz, p_description text, p_transaction_id uuid,
  p_max_running integer, p_boss text, p_job_queue text, p_job_id uuid, p_job_attempt integer
) returns jsonb language plpgsql as $$
declare
  t record;
  hold_amount bigint;
  charge bigint;
  n_generate integer := 0;
  n_callback integer := 0;
  n_mail integer := 0;
begin
  -- The job that produced this result is done whatever happens to the task: completed with the commit.
  perform ${schema}.gengate_complete_job(p_boss, p_job_queue, p_job_id, p_job_attempt);
  select user_id, modality, callback_url into t from ${schema}.tasks where id = p_task_id;
  if not found then return jsonb_build_object('ended', false); end if;
  perform 1 from ${schema}.accounts where user_id = t.user_id for update;
  update ${schema}.tasks set status = 'success', outputs = p_outputs, warnings = p_warnings, charged_micro = p_charged_micro, cost_micro = p_cost_micro,
      reported_cost_micro = p_reported_cost_micro, usage = p_usage, upstream_metadata = p_metadata, progress = null, finished_at = p_at
    where id = p_task_id and status = 'generating';
  if not found then return jsonb_build_object('ended', false); end if;

  update ${schema}.holds set state = 'settled', updated_at = now() where task_id = p_task_id and state = 'held' returning amount_micro into hold_amount;
  if found then
    -- Never above the hold.
    charge := least(p_charged_micro, hold_amount);
    insert into ${schema}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, task_id, description)
      values (p_transaction_id, t.user_id, -charge, round(abs(charge)::numeric / 100)::bigint, 'usage', 'completed', p_task_id, p_description);
    update ${schema}.accounts set balance_micro = balance_micro - charge, held_micro = held_micro - hold_amount where user_id = t.user_id;
  end if;
  n_mail := ${schema}.gengate_check_alerts(t.user_id, p_boss);
  if t.callback_url is not null then
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-callback', gen_random_uuid(), jsonb_build_object('taskId', p_task_id), t.user_id::text, null);
    n_callback := 1;
  end if;
  n_generate := ${schema}.gengate_admit_queued(t.user_id, t.modality, p_max_running, p_boss);
  return ${FINISH_RESULT};
end $$;`;

const finishFailSql = (schema: string) => `
create or replace function ${schema}.gengate_finish_fail(
  p_task_id uuid, p_message text, p_at timestamptz, p_metadata jsonb,
  p_max_running_chat integer, p_max_running_image integer, p_max_running_video integer,
  p_boss text, p_job_queue text, p_job_id uuid, p_job_attempt integer
) returns jsonb language plpgsql as $$
declare
  t record;
  hold_amount bigint;
  n_generate integer := 0;
  n_callback integer := 0;
  n_mail integer := 0;
begin
  perform ${schema}.gengate_complete_job(p_boss, p_job_queue, p_job_id, p_job_attempt);
  select user_id, modality, callback_url, model_id into t from ${schema}.tasks where id = p_task_id;
  if not found then return jsonb_build_object('ended', false); end if;
  perform 1 from ${schema}.accounts where user_id = t.user_id for update;
  update ${schema}.tasks set status = 'fail', error_message = p_message, finished_at = p_at, progress = null,
      upstream_metadata = coalesce(p_metadata, upstream_metadata)
    where id = p_task_id and status in ('waiting', 'generating');
  if not found then return jsonb_build_object('ended', false); end if;

  update ${schema}.holds set state = 'released', updated_at = now() where task_id = p_task_id and state = 'held' returning amount_micro into hold_amount;
  if found then
    update ${schema}.accounts set held_micro = held_micro - hold_amount where user_id = t.user_id;
  end if;
  if t.callback_url is not null then
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-callback', gen_random_uuid(), jsonb_build_object('taskId', p_task_id), t.user_id::text, null);
    n_callback := 1;
  end if;
  n_generate := ${schema}.gengate_admit_queued(t.user_id, t.modality,
    case t.modality when 'chat' then p_max_running_chat when 'image' then p_max_running_image else p_max_running_video end, p_boss);
  return ${FINISH_RESULT} || (select jsonb_build_object('modelId', model_id, 'startedAt', started_at) from ${schema}.tasks where id = p_task_id);
end $$;`;

/** Every function of this migration, in dependency order (adoptLegacyTables and tests may run them again). */
export const moneyRulesSql = (schema: string): string =>
  [enqueueJobSql, completeJobSql, admitQueuedSql, checkAlertsSql, submitTaskSql, finishSuccessSql, finishFailSql].map((f) => f(schema)).join('\n');

export const moneyRules: Migration = {
  version: 18,
  name: 'money rules in one place: submission, success and failure functions that write their own jobs',
  up: (schema) => `
-- 012's versions: one inserted a job the intake then deleted, the other refused (GGSLW) whenever a
-- queued task or a balance alert needed the general path. Both replaced by the complete rules below.
drop function if exists ${schema}.gengate_submit_task(uuid, uuid, uuid, text, text, jsonb, text, bigint, bigint, integer, integer, text, text, uuid, text, text, jsonb);
drop function if exists ${schema}.gengate_finish_success(uuid, jsonb, jsonb, bigint, bigint, bigint, bigint, jsonb, jsonb, timestamptz, text, uuid);
${moneyRulesSql(schema)}
`,
};
