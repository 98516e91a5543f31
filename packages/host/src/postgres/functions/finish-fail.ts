import type { SqlFunction } from './sql-function.js';
import { taskEndFunction, taskEndStep as step } from './task-end.js';

/**
 * A task's failure, cancel, sweep or exhausted job (018, 020): the task, the hold released, the callback job,
 * admission of the next queued task, the job completed. Like gengate_finish_success, a user without balance
 * alerts is ended without locking the account row: the release appended to account_pending, the user's slots
 * lock held shared to the commit, `admitAfter` reported when a queued task waits for the slot. Its steps are
 * task-end.ts's.
 */
export const finishFail: SqlFunction = taskEndFunction({
  name: 'gengate_finish_fail',
  identityArgs: 'uuid, text, timestamptz, jsonb, integer, integer, integer, text, text, uuid, integer',
  params: `p_task_id uuid, p_message text, p_at timestamptz, p_metadata jsonb, p_max_running_chat integer,
  p_max_running_image integer, p_max_running_video integer, p_boss text, p_job_queue text, p_job_id uuid,
  p_job_attempt integer`,
  columns: 'user_id, modality, callback_url, model_id',
  body: (schema) => `
  update ${schema}.tasks set status = 'fail', error_message = p_message, finished_at = p_at, progress = null,
      upstream_metadata = coalesce(p_metadata, upstream_metadata)
    where id = p_task_id and status in ('waiting', 'generating');
  ${step.ifNotEnded}

  ${step.takeHold(schema, 'released')}
  if found then
    if locked then
      update ${schema}.accounts set held_micro = held_micro - hold_amount where user_id = t.user_id;
    else
      insert into ${schema}.account_pending (user_id, held_micro) values (t.user_id, -hold_amount);
    end if;
  end if;
  ${step.callback(schema)}
  ${step.admitQueued(schema, "case t.modality when 'chat' then p_max_running_chat when 'image' then p_max_running_image else p_max_running_video end")}`,
  report: (schema) => `(select jsonb_build_object('modelId', model_id, 'startedAt', started_at) from ${schema}.tasks where id = p_task_id)`,
});
