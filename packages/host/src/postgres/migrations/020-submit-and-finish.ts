/*
 * gengate_submit_task, gengate_finish_success and gengate_finish_fail of migration 020: 018's bodies with
 * the changes marked "020" (see 020-account-pending.ts for the design and its invariants); the submission
 * keeps 019's signature (p_at) and its key admission, marked "019".
 */

/** The advisory lock key of a user's running slots: ends in flight hold it shared, a queueing submission exclusive. */
const slotsKey = (user: string) => `hashtextextended('gengate-slots:' || ${user}::text, 0)`;

export const submitTaskSql = (schema: string) => `
create or replace function ${schema}.gengate_submit_task(
  p_task_id uuid, p_user_id uuid, p_api_key_id uuid, p_model_id text, p_modality text, p_request jsonb,
  p_callback_url text, p_quoted_micro bigint, p_quoted_cost_micro bigint,
  p_max_running integer, p_max_queued integer,
  p_boss text, p_job_id uuid, p_provider_id text,
  p_idempotency_key text, p_request_hash text, p_response jsonb, p_at timestamptz
) returns boolean language plpgsql as $$
declare
  earlier record;
  n_admitted integer;
  n_queued integer;
  admit boolean;
  v_key_period timestamptz;
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
  perform 1 from ${schema}.accounts where user_id = p_user_id for update;
  -- 020: the ends committed since the last fold, into the row (balance, held, counts) before it is read.
  perform ${schema}.gengate_fold_pending(p_user_id);
  if p_api_key_id is not null and not exists (select 1 from ${schema}.api_keys where id = p_api_key_id and revoked_at is null) then
    raise exception using errcode = 'GG401', message = 'gengate: API key revoked';
  end if;
  -- 019: the key's own controls, under the account lock (every submission of a key is its user's).
  if p_api_key_id is not null then
    v_key_period := ${schema}.gengate_key_budget_admit(p_api_key_id, p_model_id, p_provider_id, p_modality, p_quoted_micro, p_at, p_boss);
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
  if not admit then
    -- 020: at the limit. The ends in flight (they hold this lock shared) commit first; what they freed is folded.
    perform pg_advisory_xact_lock(${slotsKey('p_user_id')});
    if ${schema}.gengate_fold_pending(p_user_id) > 0 then
      select case p_modality when 'chat' then running_chat when 'image' then running_image else running_video end,
             case p_modality when 'chat' then queued_chat when 'image' then queued_image else queued_video end
        into n_admitted, n_queued from ${schema}.accounts where user_id = p_user_id;
      admit := n_admitted < p_max_running;
    end if;
  end if;
  if not admit and n_queued >= p_max_queued then
    raise exception using errcode = 'GG429', message = 'gengate: queue full',
      detail = json_build_object('admitted', n_admitted, 'queued', n_queued)::text;
  end if;

  insert into ${schema}.tasks (id, user_id, api_key_id, model_id, modality, status, request, callback_url, quoted_micro, quoted_cost_micro, admitted)
    values (p_task_id, p_user_id, p_api_key_id, p_model_id, p_modality, 'waiting', p_request, p_callback_url, p_quoted_micro, p_quoted_cost_micro, admit);
  insert into ${schema}.holds (task_id, user_id, amount_micro, state, api_key_id, key_period_start)
    values (p_task_id, p_user_id, p_quoted_micro, 'held', p_api_key_id, v_key_period);
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

/** What a finish reports: whether it ended the task, the jobs it added, and (020) whether its user's queue needs admitting after the commit. */
const FINISH_RESULT = `jsonb_build_object('ended', true, 'generate', n_generate, 'callback', n_callback, 'alertMail', n_mail,
    'admitAfter', admit_after, 'userId', t.user_id, 'modality', t.modality)`;

/**
 * 020: the start of an end. A user with balance alerts keeps 018's locked path (the alert rule needs the
 * exact balance); any other end asks the counts trigger to append its decrement to account_pending, and
 * holds the user's slots lock shared from here to its commit. Taken first, before the end writes any row a
 * submission also writes (019's key_spend, through the hold's trigger): a queueing submission takes the lock
 * exclusive and then writes those rows, so both take them in the same order (taken last, the two deadlocked).
 */
const beginEnd = (schema: string) => `
  locked := exists (select 1 from ${schema}.balance_alerts where user_id = t.user_id);
  if locked then
    perform 1 from ${schema}.accounts where user_id = t.user_id for update;
  else
    perform set_config('gengate.defer_account', 'on', true);
    perform pg_advisory_xact_lock_shared(${slotsKey('t.user_id')});
  end if;`;

/** 020: the end of an unlocked end (the slots lock held since beginEnd): see whether a queued task waits for the slot. */
const endUnlocked = (schema: string) => `
  perform set_config('gengate.defer_account', 'off', true);
  if not locked then
    admit_after := exists (select 1 from ${schema}.account_totals where user_id = t.user_id
      and case t.modality when 'chat' then queued_chat when 'image' then queued_image else queued_video end > 0);
  end if;`;

const NOT_ENDED = `begin perform set_config('gengate.defer_account', 'off', true); return jsonb_build_object('ended', false); end`;

export const finishSuccessSql = (schema: string) => `
create or replace function ${schema}.gengate_finish_success(
  p_task_id uuid, p_outputs jsonb, p_warnings jsonb, p_charged_micro bigint, p_cost_micro bigint,
  p_reported_cost_micro bigint, p_usage jsonb, p_metadata jsonb, p_at timestamptz, p_description text, p_transaction_id uuid,
  p_max_running integer, p_boss text, p_job_queue text, p_job_id uuid, p_job_attempt integer
) returns jsonb language plpgsql as $$
declare
  t record;
  hold_amount bigint;
  charge bigint;
  locked boolean;
  admit_after boolean := false;
  n_generate integer := 0;
  n_callback integer := 0;
  n_mail integer := 0;
begin
  perform ${schema}.gengate_complete_job(p_boss, p_job_queue, p_job_id, p_job_attempt);
  select user_id, modality, callback_url into t from ${schema}.tasks where id = p_task_id;
  if not found then return jsonb_build_object('ended', false); end if;
  ${beginEnd(schema)}
  update ${schema}.tasks set status = 'success', outputs = p_outputs, warnings = p_warnings, charged_micro = p_charged_micro, cost_micro = p_cost_micro,
      reported_cost_micro = p_reported_cost_micro, usage = p_usage, upstream_metadata = p_metadata, progress = null, finished_at = p_at
    where id = p_task_id and status = 'generating';
  if not found then ${NOT_ENDED}; end if;

  update ${schema}.holds set state = 'settled', updated_at = now() where task_id = p_task_id and state = 'held' returning amount_micro into hold_amount;
  if found then
    charge := least(p_charged_micro, hold_amount);
    insert into ${schema}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, task_id, description)
      values (p_transaction_id, t.user_id, -charge, round(abs(charge)::numeric / 100)::bigint, 'usage', 'completed', p_task_id, p_description);
    if locked then
      update ${schema}.accounts set balance_micro = balance_micro - charge, held_micro = held_micro - hold_amount where user_id = t.user_id;
    else
      -- 020: the charge and the hold's settlement, appended (folded by the next holder of the account lock).
      insert into ${schema}.account_pending (user_id, balance_micro, held_micro) values (t.user_id, -charge, -hold_amount);
    end if;
  end if;
  if locked then n_mail := ${schema}.gengate_check_alerts(t.user_id, p_boss); end if;
  if t.callback_url is not null then
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-callback', gen_random_uuid(), jsonb_build_object('taskId', p_task_id), t.user_id::text, null);
    n_callback := 1;
  end if;
  if locked then n_generate := ${schema}.gengate_admit_queued(t.user_id, t.modality, p_max_running, p_boss); end if;
  ${endUnlocked(schema)}
  return ${FINISH_RESULT};
end $$;`;

export const finishFailSql = (schema: string) => `
create or replace function ${schema}.gengate_finish_fail(
  p_task_id uuid, p_message text, p_at timestamptz, p_metadata jsonb,
  p_max_running_chat integer, p_max_running_image integer, p_max_running_video integer,
  p_boss text, p_job_queue text, p_job_id uuid, p_job_attempt integer
) returns jsonb language plpgsql as $$
declare
  t record;
  hold_amount bigint;
  locked boolean;
  admit_after boolean := false;
  n_generate integer := 0;
  n_callback integer := 0;
  n_mail integer := 0;
begin
  perform ${schema}.gengate_complete_job(p_boss, p_job_queue, p_job_id, p_job_attempt);
  select user_id, modality, callback_url, model_id into t from ${schema}.tasks where id = p_task_id;
  if not found then return jsonb_build_object('ended', false); end if;
  ${beginEnd(schema)}
  update ${schema}.tasks set status = 'fail', error_message = p_message, finished_at = p_at, progress = null,
      upstream_metadata = coalesce(p_metadata, upstream_metadata)
    where id = p_task_id and status in ('waiting', 'generating');
  if not found then ${NOT_ENDED}; end if;

  update ${schema}.holds set state = 'released', updated_at = now() where task_id = p_task_id and state = 'held' returning amount_micro into hold_amount;
  if found then
    if locked then
      update ${schema}.accounts set held_micro = held_micro - hold_amount where user_id = t.user_id;
    else
      insert into ${schema}.account_pending (user_id, held_micro) values (t.user_id, -hold_amount);
    end if;
  end if;
  if t.callback_url is not null then
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-callback', gen_random_uuid(), jsonb_build_object('taskId', p_task_id), t.user_id::text, null);
    n_callback := 1;
  end if;
  if locked then
    n_generate := ${schema}.gengate_admit_queued(t.user_id, t.modality,
      case t.modality when 'chat' then p_max_running_chat when 'image' then p_max_running_image else p_max_running_video end, p_boss);
  end if;
  ${endUnlocked(schema)}
  return ${FINISH_RESULT} || (select jsonb_build_object('modelId', model_id, 'startedAt', started_at) from ${schema}.tasks where id = p_task_id);
end $$;`;
