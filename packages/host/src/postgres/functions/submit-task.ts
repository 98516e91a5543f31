import { tallyApplied, tallyArguments, tallyAtLimit, tallyDeclare, tallyRead, tallyWritten } from './account-tally.js';
import type { SqlFunction } from './sql-function.js';
import { rowsAccepted, rowsDeclare, rowsWritten, type SubmissionItem } from './submission-rows.js';
import { keySpendHeld, memberSpendHeld } from './spend-triggers.js';

/** gengate_submit_task's arguments, in order (the one identity of both functions below). */
const SUBMIT_TASK_ARGS = 'uuid, uuid, uuid, text, text, jsonb, text, bigint, bigint, integer, integer, text, uuid, text, text, text, jsonb, timestamptz, uuid';
/**
 * gengate_submit_locked_task's: gengate_submit_task's, then the account's figures (credits available, running,
 * queued) and the keys of the tasks its caller collected and has not written yet (submission-rows.ts).
 */
const LOCKED_TASK_ARGS = `${SUBMIT_TASK_ARGS}, bigint, integer, integer, uuid[]`;

/** gengate_submit_task's parameters as a submission item (submission-rows.ts). */
const SINGLE_ITEM: SubmissionItem = {
  taskId: 'p_task_id',
  userId: 'p_user_id',
  apiKeyId: 'p_api_key_id',
  modelId: 'p_model_id',
  modality: 'p_modality',
  request: 'p_request',
  callbackUrl: 'p_callback_url',
  quoted: 'p_quoted_micro',
  quotedCost: 'p_quoted_cost_micro',
  memberId: 'p_member_id',
  jobId: 'p_job_id',
  providerId: 'p_provider_id',
};
const SUBMIT_TASK_PARAMS = `  p_task_id uuid, p_user_id uuid, p_api_key_id uuid, p_model_id text, p_modality text, p_request jsonb,
  p_callback_url text, p_quoted_micro bigint, p_quoted_cost_micro bigint, p_max_running integer,
  p_max_queued integer, p_boss text, p_job_id uuid, p_provider_id text, p_idempotency_key text,
  p_request_hash text, p_response jsonb, p_at timestamptz, p_member_id uuid`;

/**
 * A submission in one statement (012, 018, 019, 020, 026): the idempotency window (GG409 replay, GG410 race),
 * the account lock and the pending fold, the key's revocation (GG401), the key's and the member's controls,
 * the balance hold (GG402), admission or queue (GG429 queue full; at the limit the ends in flight are waited
 * for and folded first), the task and its hold, its generation job only when admitted, the idempotency record.
 * Refusals raise a gengate SQLSTATE, so the whole transaction rolls back (PgTaskIntake, pg-task-intake.ts).
 * It runs the same steps as a batch of one: the account row read and written once (account-tally.ts), the
 * task, hold and job rows written after the decision (submission-rows.ts).
 */
export const submitTask: SqlFunction = {
  name: 'gengate_submit_task',
  identityArgs: SUBMIT_TASK_ARGS,
  sql: (schema) => `
create or replace function ${schema}.gengate_submit_task(
${SUBMIT_TASK_PARAMS}
) returns boolean
language plpgsql as $$
declare
  r record;
  ${tallyDeclare(schema)}
  ${rowsDeclare(schema)}
begin
  -- The account row first, before the idempotency record's row: every path that locks both (this one,
  -- gengate_submit_tasks, which locks the account row and then runs gengate_submit_locked_task per item)
  -- takes them in this order, so a single submission and a batch replaying the same key cannot wait for
  -- each other.
  insert into ${schema}.accounts (user_id) values (p_user_id) on conflict do nothing;
  perform 1 from ${schema}.accounts where user_id = p_user_id for update;
  -- 020: the ends committed since the last fold, into the row (balance, held, counts) before it is read.
  perform ${schema}.gengate_fold_pending(p_user_id);
  -- 033: and the spend rows' (029), once per submission now that a hold no longer folds its row's.
  perform ${schema}.gengate_fold_spend_pending(p_user_id);
  ${tallyRead(schema, 'p_user_id')}
  ${tallyAtLimit(schema, 'p_user_id', 'p_modality', 'p_max_running')}
  r := ${schema}.gengate_submit_locked_task(p_task_id, p_user_id, p_api_key_id, p_model_id, p_modality, p_request,
    p_callback_url, p_quoted_micro, p_quoted_cost_micro, p_max_running, p_max_queued, p_boss, p_job_id,
    p_provider_id, p_idempotency_key, p_request_hash, p_response, p_at, p_member_id, ${tallyArguments('p_modality')}, v_task_keys);
  ${tallyApplied('p_modality', 'p_quoted_micro', 'r.o_admitted')}
  ${rowsAccepted(SINGLE_ITEM, 'r')}
  ${rowsWritten(schema, 'p_boss')}
  ${tallyWritten(schema, 'p_user_id')}
  return r.o_admitted;
end $$;`,
};

/**
 * gengate_submit_task's rules once its caller holds the user's account row lock (the row exists), has
 * folded the user's pending ends into it (gengate_fold_pending) and keeps the row in variables
 * (account-tally.ts): the single submission takes the lock, folds, then calls it; gengate_submit_tasks takes
 * the lock and folds once for its batch and calls it per item (relocking the row per item cost two
 * statements an item, and a lock by each item's subtransaction on a row its parent had locked already;
 * folding per item cost a scan of account_pending per item, a fifth of the batch's time in PostgreSQL by
 * pg_stat_statements). An end that commits while a batch runs waits for the next fold: what it frees (held
 * credits, a running slot) is only seen a batch later, never counted twice; at the running limit the caller
 * waits for the ends in flight and folds again before the call.
 * The account's figures are arguments (credits available, the modality's running and queued counts, from the
 * caller's variables), and so are the keys of the tasks the caller collected and has not written
 * (`p_unwritten_keys`, for a key's concurrency cap). It answers whether the task is admitted and the periods
 * its hold counts in (`o_admitted`, `o_key_period`, `o_member_period`); it writes the spend rows and the
 * idempotency record (a later item of the batch reads them), and its caller adds the hold and the count to
 * the account row and writes the task, the hold and the job (submission-rows.ts) after the batch's items.
 */
export const submitLockedTask: SqlFunction = {
  name: 'gengate_submit_locked_task',
  identityArgs: LOCKED_TASK_ARGS,
  sql: (schema) => `
create or replace function ${schema}.gengate_submit_locked_task(
${SUBMIT_TASK_PARAMS},
  p_available bigint, p_running integer, p_queued integer, p_unwritten_keys uuid[],
  out o_admitted boolean, out o_key_period timestamptz, out o_member_period timestamptz
)
language plpgsql as $$
declare
  earlier record;
  admit boolean;
  v_key_period timestamptz;
  v_member uuid := coalesce(p_member_id, p_user_id);
  v_member_period timestamptz;
begin
  if p_idempotency_key is not null then
    select request_hash, response into earlier from ${schema}.idempotency_keys
      where user_id = p_user_id and key = p_idempotency_key and created_at > now() - interval '24 hours' for update;
    if found then
      raise exception using errcode = 'GG409', message = 'gengate: idempotent replay',
        detail = json_build_object('request_hash', earlier.request_hash, 'response', earlier.response)::text;
    end if;
  end if;

  -- 019: the key's revocation and its own controls, under the account lock (every submission of a key is
  -- its user's; a revoke takes the same lock).
  if p_api_key_id is not null then
    v_key_period := ${schema}.gengate_key_budget_admit(p_api_key_id, p_model_id, p_provider_id, p_modality, p_quoted_micro, p_at, p_boss, p_unwritten_keys);
  end if;
  -- 026: the member's spend limit, after the key's (the key's refusal comes first), under the same lock
  -- (every submission of the organization's members takes it), before the balance hold.
  v_member_period := ${schema}.gengate_member_budget_admit(p_user_id, v_member, p_quoted_micro, p_at);
  if p_available < p_quoted_micro then
    raise exception using errcode = 'GG402', message = 'gengate: insufficient credits';
  end if;
  admit := p_running < p_max_running;
  if not admit and p_queued >= p_max_queued then
    raise exception using errcode = 'GG429', message = 'gengate: queue full',
      detail = json_build_object('admitted', p_running, 'queued', p_queued)::text;
  end if;

  -- The hold in its key's and its member's spend rows of the period (033: here, not by the holds' triggers).
  if v_key_period is not null then
    ${keySpendHeld(schema, 'p_api_key_id', 'v_key_period', 'p_quoted_micro')}
  end if;
  if v_member_period is not null then
    ${memberSpendHeld(schema, 'p_user_id', 'v_member', 'v_member_period', 'p_quoted_micro')}
  end if;

  if p_idempotency_key is not null then
    insert into ${schema}.idempotency_keys (user_id, key, request_hash, response) values (p_user_id, p_idempotency_key, p_request_hash, p_response)
      on conflict (user_id, key) do update set request_hash = excluded.request_hash, response = excluded.response, created_at = now()
      where idempotency_keys.created_at <= now() - interval '24 hours';
    if not found then
      raise exception using errcode = 'GG410', message = 'gengate: idempotency key raced';
    end if;
  end if;
  o_admitted := admit;
  o_key_period := v_key_period;
  o_member_period := v_member_period;
end $$;`,
};
