import type { SqlFunction } from './sql-function.js';
import { taskEndFunction, taskEndStep as step } from './task-end.js';

/**
 * A task's success (018, 020): the task (with its inline outputs' bytes, 030; the last argument, defaulted
 * so that a call without it, from a process of the previous release, still resolves), the charge (never above the hold) with the hold settled, alerts, the
 * callback job, admission of the next queued task, the job completed. A user with balance alerts keeps the
 * locked path (account row locked, updated, alerts checked); any other end does not touch the account row:
 * its deltas are appended to account_pending (folded by the next holder of the account lock), it holds the
 * user's slots lock shared from its start to its commit, and reports `admitAfter` when a queued task waits
 * for the freed slot (docs/architecture.md "A task's end does not wait on the account row"). What it shares
 * with gengate_finish_fail is written once in task-end.ts.
 */
export const finishSuccess: SqlFunction = taskEndFunction({
  name: 'gengate_finish_success',
  identityArgs: 'uuid, jsonb, jsonb, bigint, bigint, bigint, jsonb, jsonb, timestamptz, text, uuid, integer, text, text, uuid, integer, bytea[]',
  params: `p_task_id uuid, p_outputs jsonb, p_warnings jsonb, p_charged_micro bigint, p_cost_micro bigint,
  p_reported_cost_micro bigint, p_usage jsonb, p_metadata jsonb, p_at timestamptz, p_description text,
  p_transaction_id uuid, p_max_running integer, p_boss text, p_job_queue text, p_job_id uuid,
  p_job_attempt integer, p_output_bodies bytea[] default null`,
  declare: 'charge bigint;',
  columns: 'user_id, modality, callback_url',
  body: (schema) => `
  update ${schema}.tasks set status = 'success', outputs = p_outputs, warnings = p_warnings, charged_micro = p_charged_micro, cost_micro = p_cost_micro,
      reported_cost_micro = p_reported_cost_micro, usage = p_usage, upstream_metadata = p_metadata, progress = null, finished_at = p_at,
      output_bodies = p_output_bodies
    where id = p_task_id and status = 'generating';
  ${step.ifNotEnded}

  ${step.takeHold(schema, 'settled')}
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
  ${step.callback(schema)}
  ${step.admitQueued(schema, 'p_max_running')}`,
});
