import type { SqlFunction } from './sql-function.js';

/**
 * A task's success (018, 020; the inline outputs' bytes 030, the last argument, defaulted so that a call
 * without it still resolves): gengate_finish_successes for one item, whose rules it follows (the charge never
 * above the hold, the hold settled, alerts, the callback job, the admission of the next queued task, the job
 * removed; the locked and unlocked paths). A lone end (SuccessBatch's batch of one, and the retry of a
 * batch that rolled back) and a process of an earlier release call it.
 */
export const finishSuccess: SqlFunction = {
  name: 'gengate_finish_success',
  identityArgs: 'uuid, jsonb, jsonb, bigint, bigint, bigint, jsonb, jsonb, timestamptz, text, uuid, integer, text, text, uuid, integer, bytea[]',
  sql: (schema) => `
create or replace function ${schema}.gengate_finish_success(
  p_task_id uuid, p_outputs jsonb, p_warnings jsonb, p_charged_micro bigint, p_cost_micro bigint,
  p_reported_cost_micro bigint, p_usage jsonb, p_metadata jsonb, p_at timestamptz, p_description text,
  p_transaction_id uuid, p_max_running integer, p_boss text, p_job_queue text, p_job_id uuid,
  p_job_attempt integer, p_output_bodies bytea[] default null
) returns jsonb
language sql as $$
  select f.report from ${schema}.gengate_finish_successes(array[p_task_id], array[p_outputs], array[p_warnings], array[p_charged_micro],
    array[p_cost_micro], array[p_reported_cost_micro], array[p_usage], array[p_metadata], array[p_at], array[p_description],
    array[p_transaction_id], array[p_max_running], p_boss, array[p_job_queue], array[p_job_id], array[p_job_attempt],
    array[p_output_bodies::text]) f
$$;`,
};
