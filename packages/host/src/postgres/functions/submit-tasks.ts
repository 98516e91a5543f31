import { tallyApplied, tallyArguments, tallyAtLimit, tallyDeclare, tallyRead, tallyWritten } from './account-tally.js';
import type { SqlFunction } from './sql-function.js';
import { rowsAccepted, rowsDeclare, rowsWritten, type SubmissionItem } from './submission-rows.js';

/** The batch's item record `i` as a submission item (submission-rows.ts). */
const BATCH_ITEM: SubmissionItem = {
  taskId: 'i.task_id',
  userId: 'p_user_id',
  apiKeyId: 'i.api_key_id',
  modelId: 'i.model_id',
  modality: 'i.modality',
  request: 'i.request',
  callbackUrl: 'i.callback_url',
  quoted: 'i.quoted_micro',
  quotedCost: 'i.quoted_cost_micro',
  memberId: 'i.member_id',
  jobId: 'i.job_id',
  providerId: 'i.provider_id',
};

/**
 * The submissions of ONE user in one statement, one transaction (group commit): one lock of the account row,
 * one commit (one WAL flush), one round trip for up to 32 submissions that arrived together (PgTaskIntake).
 * The account row is locked first, in the outer transaction, so it stays locked while the items run. Each item
 * then is gengate_submit_locked_task, gengate_submit_task's rules under that lock (no rule is copied here),
 * called in a BEGIN ... EXCEPTION block: a
 * subtransaction, so a refused item's writes roll back alone and the next item sees exactly what a sequential
 * submission would (the holds, tasks, queue counts and idempotency records of the items before it: the
 * account row in the caller's variables, account-tally.ts; the tasks, holds and jobs collected and written
 * after the loop, submission-rows.ts, their keys given to each item for a key's concurrency cap). Only
 * gengate's own refusals (SQLSTATE class GG) are caught and answered as that item's row; any other error
 * re-raises and rolls back the whole batch. One row per item, in order (`ord` = its index, from 1).
 * Keep batches at or below 32 items: a backend caches 64 subtransaction ids; beyond, visibility checks slow down.
 */
export const submitTasks: SqlFunction = {
  name: 'gengate_submit_tasks',
  identityArgs: 'uuid, text, jsonb',
  sql: (schema) => `
create or replace function ${schema}.gengate_submit_tasks(p_user_id uuid, p_boss text, p_items jsonb)
returns table (ord integer, admitted boolean, refusal_code text, refusal_detail text)
language plpgsql as $$
declare
  i record;
  v_code text;
  v_detail text;
  r record;
  ${tallyDeclare(schema)}
  ${rowsDeclare(schema)}
begin
  insert into ${schema}.accounts (user_id) values (p_user_id) on conflict do nothing;
  perform 1 from ${schema}.accounts where user_id = p_user_id for update;
  -- 020: the ends committed since the last fold, once for the batch (see gengate_submit_locked_task).
  perform ${schema}.gengate_fold_pending(p_user_id);
  -- 033: and the spend rows' (029), once for the batch.
  perform ${schema}.gengate_fold_spend_pending(p_user_id);
  ${tallyRead(schema, 'p_user_id')}
  for i in
    select * from rows from (jsonb_to_recordset(p_items) as (
      task_id uuid, api_key_id uuid, model_id text, modality text, request jsonb, callback_url text,
      quoted_micro bigint, quoted_cost_micro bigint, max_running integer, max_queued integer, job_id uuid,
      provider_id text, idempotency_key text, request_hash text, response jsonb, at timestamptz, member_id uuid
    )) with ordinality as x(task_id, api_key_id, model_id, modality, request, callback_url, quoted_micro,
      quoted_cost_micro, max_running, max_queued, job_id, provider_id, idempotency_key, request_hash, response,
      at, member_id, n)
    order by n
  loop
    ord := i.n;
    refusal_code := null;
    refusal_detail := null;
    ${tallyAtLimit(schema, 'p_user_id', 'i.modality', 'i.max_running')}
    begin
      r := ${schema}.gengate_submit_locked_task(i.task_id, p_user_id, i.api_key_id, i.model_id, i.modality, i.request,
        i.callback_url, i.quoted_micro, i.quoted_cost_micro, i.max_running, i.max_queued, p_boss, i.job_id,
        i.provider_id, i.idempotency_key, i.request_hash, i.response, i.at, i.member_id, ${tallyArguments('i.modality')}, v_task_keys);
      admitted := r.o_admitted;
      ${tallyApplied('i.modality', 'i.quoted_micro', 'admitted')}
      ${rowsAccepted(BATCH_ITEM, 'r')}
    exception when others then
      get stacked diagnostics v_code = returned_sqlstate, v_detail = pg_exception_detail;
      if v_code not like 'GG%' then
        raise;
      end if;
      admitted := null;
      refusal_code := v_code;
      refusal_detail := nullif(v_detail, '');
    end;
    return next;
  end loop;
  ${rowsWritten(schema, 'p_boss')}
  ${tallyWritten(schema, 'p_user_id')}
end $$;`,
};
