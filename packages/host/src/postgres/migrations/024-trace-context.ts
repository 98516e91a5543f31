import type { Migration } from './migration.js';

/**
 * A task's trace context (issue 21, OpenTelemetry): the W3C `traceparent` of the span that submitted it, so
 * every job of the task (its generation job, retries, status checks, the admission of a queued task) joins
 * the submission's trace. It lives on the task row rather than in each job's data because the money-rule
 * functions (migrations 018 to 020) insert the jobs themselves; one column reaches every job without touching them.
 *
 * gengate_submit_task_traced: gengate_submit_task, then the trace context written in the same transaction
 * (the function is its own transaction: a refusal raised by gengate_submit_task writes nothing). Called only
 * when tracing is on; with tracing off the intake calls gengate_submit_task as before.
 */
export const traceContext: Migration = {
  version: 24,
  name: 'trace context: the submission span of each task, carried across the queue to its jobs',
  up: (schema) => `
alter table ${schema}.tasks add column trace_parent text;

create or replace function ${schema}.gengate_submit_task_traced(
  p_trace_parent text,
  p_task_id uuid, p_user_id uuid, p_api_key_id uuid, p_model_id text, p_modality text, p_request jsonb,
  p_callback_url text, p_quoted_micro bigint, p_quoted_cost_micro bigint,
  p_max_running integer, p_max_queued integer,
  p_boss text, p_job_id uuid, p_provider_id text,
  p_idempotency_key text, p_request_hash text, p_response jsonb, p_at timestamptz
) returns boolean language plpgsql as $$
declare
  admit boolean;
begin
  admit := ${schema}.gengate_submit_task(p_task_id, p_user_id, p_api_key_id, p_model_id, p_modality, p_request,
    p_callback_url, p_quoted_micro, p_quoted_cost_micro, p_max_running, p_max_queued,
    p_boss, p_job_id, p_provider_id, p_idempotency_key, p_request_hash, p_response, p_at);
  update ${schema}.tasks set trace_parent = p_trace_parent where id = p_task_id;
  return admit;
end $$;
`,
};
