import type { SqlFunction } from './sql-function.js';

/** gengate_submit_task, then the task's trace context in the same transaction (024; called only when tracing is on). */
export const submitTaskTraced: SqlFunction = {
  name: 'gengate_submit_task_traced',
  identityArgs: 'text, uuid, uuid, uuid, text, text, jsonb, text, bigint, bigint, integer, integer, text, uuid, text, text, text, jsonb, timestamptz, uuid',
  sql: (schema) => `
create or replace function ${schema}.gengate_submit_task_traced(
  p_trace_parent text, p_task_id uuid, p_user_id uuid, p_api_key_id uuid, p_model_id text, p_modality text,
  p_request jsonb, p_callback_url text, p_quoted_micro bigint, p_quoted_cost_micro bigint, p_max_running integer,
  p_max_queued integer, p_boss text, p_job_id uuid, p_provider_id text, p_idempotency_key text,
  p_request_hash text, p_response jsonb, p_at timestamptz, p_member_id uuid
) returns boolean
language plpgsql as $$
declare
  admit boolean;
begin
  admit := ${schema}.gengate_submit_task(p_task_id, p_user_id, p_api_key_id, p_model_id, p_modality, p_request,
    p_callback_url, p_quoted_micro, p_quoted_cost_micro, p_max_running, p_max_queued,
    p_boss, p_job_id, p_provider_id, p_idempotency_key, p_request_hash, p_response, p_at, p_member_id);
  update ${schema}.tasks set trace_parent = p_trace_parent where id = p_task_id;
  return admit;
end $$;`,
};
