import type { SqlFunction } from './sql-function.js';

/**
 * A task's success (018, 020): the task, the charge (never above the hold) with the hold settled, alerts, the
 * callback job, admission of the next queued task, the job completed. A user with balance alerts keeps the
 * locked path (account row locked, updated, alerts checked); any other end does not touch the account row:
 * its deltas are appended to account_pending (folded by the next holder of the account lock), it holds the
 * user's slots lock shared from its start to its commit, and reports `admitAfter` when a queued task waits
 * for the freed slot (docs/architecture.md "A task's end does not wait on the account row").
 */
export const finishSuccess: SqlFunction = {
  name: 'gengate_finish_success',
  identityArgs: 'uuid, jsonb, jsonb, bigint, bigint, bigint, jsonb, jsonb, timestamptz, text, uuid, integer, text, text, uuid, integer',
  sql: (schema) => `
create or replace function ${schema}.gengate_finish_success(
  p_task_id uuid, p_outputs jsonb, p_warnings jsonb, p_charged_micro bigint, p_cost_micro bigint,
  p_reported_cost_micro bigint, p_usage jsonb, p_metadata jsonb, p_at timestamptz, p_description text,
  p_transaction_id uuid, p_max_running integer, p_boss text, p_job_queue text, p_job_id uuid,
  p_job_attempt integer
) returns jsonb
language plpgsql as $$
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
  
  locked := exists (select 1 from ${schema}.balance_alerts where user_id = t.user_id);
  if locked then
    perform 1 from ${schema}.accounts where user_id = t.user_id for update;
  else
    perform set_config('gengate.defer_account', 'on', true);
    perform pg_advisory_xact_lock_shared(hashtextextended('gengate-slots:' || t.user_id::text, 0));
  end if;
  update ${schema}.tasks set status = 'success', outputs = p_outputs, warnings = p_warnings, charged_micro = p_charged_micro, cost_micro = p_cost_micro,
      reported_cost_micro = p_reported_cost_micro, usage = p_usage, upstream_metadata = p_metadata, progress = null, finished_at = p_at
    where id = p_task_id and status = 'generating';
  if not found then begin perform set_config('gengate.defer_account', 'off', true); return jsonb_build_object('ended', false); end; end if;

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
  
  perform set_config('gengate.defer_account', 'off', true);
  if not locked then
    admit_after := exists (select 1 from ${schema}.account_totals where user_id = t.user_id
      and case t.modality when 'chat' then queued_chat when 'image' then queued_image else queued_video end > 0);
  end if;
  return jsonb_build_object('ended', true, 'generate', n_generate, 'callback', n_callback, 'alertMail', n_mail,
    'admitAfter', admit_after, 'userId', t.user_id, 'modality', t.modality);
end $$;`,
};
