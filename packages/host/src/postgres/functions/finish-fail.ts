import type { SqlFunction } from './sql-function.js';

/**
 * A task's failure, cancel, sweep or exhausted job (018, 020): the task, the hold released, the callback job,
 * admission of the next queued task, the job completed. Like gengate_finish_success, a user without balance
 * alerts is ended without locking the account row: the release appended to account_pending, the user's slots
 * lock held shared to the commit, `admitAfter` reported when a queued task waits for the slot.
 */
export const finishFail: SqlFunction = {
  name: 'gengate_finish_fail',
  identityArgs: 'uuid, text, timestamptz, jsonb, integer, integer, integer, text, text, uuid, integer',
  sql: (schema) => `
create or replace function ${schema}.gengate_finish_fail(
  p_task_id uuid, p_message text, p_at timestamptz, p_metadata jsonb, p_max_running_chat integer,
  p_max_running_image integer, p_max_running_video integer, p_boss text, p_job_queue text, p_job_id uuid,
  p_job_attempt integer
) returns jsonb
language plpgsql as $$
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
  
  locked := exists (select 1 from ${schema}.balance_alerts where user_id = t.user_id);
  if locked then
    perform 1 from ${schema}.accounts where user_id = t.user_id for update;
  else
    perform set_config('gengate.defer_account', 'on', true);
    perform pg_advisory_xact_lock_shared(hashtextextended('gengate-slots:' || t.user_id::text, 0));
  end if;
  update ${schema}.tasks set status = 'fail', error_message = p_message, finished_at = p_at, progress = null,
      upstream_metadata = coalesce(p_metadata, upstream_metadata)
    where id = p_task_id and status in ('waiting', 'generating');
  if not found then begin perform set_config('gengate.defer_account', 'off', true); return jsonb_build_object('ended', false); end; end if;

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
  
  perform set_config('gengate.defer_account', 'off', true);
  if not locked then
    admit_after := exists (select 1 from ${schema}.account_totals where user_id = t.user_id
      and case t.modality when 'chat' then queued_chat when 'image' then queued_image else queued_video end > 0);
  end if;
  return jsonb_build_object('ended', true, 'generate', n_generate, 'callback', n_callback, 'alertMail', n_mail,
    'admitAfter', admit_after, 'userId', t.user_id, 'modality', t.modality) || (select jsonb_build_object('modelId', model_id, 'startedAt', started_at) from ${schema}.tasks where id = p_task_id);
end $$;`,
};
