import type { Migration } from './migration.js';

/** gengate_count_active_tasks(), created in the schema with its tables named in it (run again by adoptLegacyTables). */
export const countActiveTasksSql = (schema: string): string => `
create or replace function ${schema}.gengate_count_active_tasks() returns trigger language plpgsql as $$
declare
  run_delta integer := 0;
  queue_delta integer := 0;
  t ${schema}.tasks;
begin
  if tg_op <> 'INSERT' and old.status in ('waiting', 'generating') then
    if old.admitted then run_delta := run_delta - 1; else queue_delta := queue_delta - 1; end if;
  end if;
  if tg_op <> 'DELETE' and new.status in ('waiting', 'generating') then
    if new.admitted then run_delta := run_delta + 1; else queue_delta := queue_delta + 1; end if;
  end if;
  if run_delta = 0 and queue_delta = 0 then return null; end if;
  if tg_op = 'DELETE' then t := old; else t := new; end if;
  for attempt in 1..2 loop
    update ${schema}.accounts set
      running_chat = running_chat + case when t.modality = 'chat' then run_delta else 0 end,
      running_image = running_image + case when t.modality = 'image' then run_delta else 0 end,
      running_video = running_video + case when t.modality = 'video' then run_delta else 0 end,
      queued_chat = queued_chat + case when t.modality = 'chat' then queue_delta else 0 end,
      queued_image = queued_image + case when t.modality = 'image' then queue_delta else 0 end,
      queued_video = queued_video + case when t.modality = 'video' then queue_delta else 0 end
    where user_id = t.user_id;
    exit when found;
    insert into ${schema}.accounts (user_id) values (t.user_id) on conflict do nothing;
  end loop;
  return null;
end $$;`;

/** gengate_recount_active_tasks(), created in the schema with its tables named in it (run again by adoptLegacyTables). */
export const recountActiveTasksSql = (schema: string): string => `
create or replace function ${schema}.gengate_recount_active_tasks() returns setof uuid language plpgsql as $$
declare
  u uuid;
  c record;
begin
  for u in
    select a.user_id from ${schema}.accounts a
    left join (
      select user_id,
        count(*) filter (where modality = 'chat' and admitted) as rc, count(*) filter (where modality = 'image' and admitted) as ri,
        count(*) filter (where modality = 'video' and admitted) as rv, count(*) filter (where modality = 'chat' and not admitted) as qc,
        count(*) filter (where modality = 'image' and not admitted) as qi, count(*) filter (where modality = 'video' and not admitted) as qv
      from ${schema}.tasks where status in ('waiting', 'generating') group by user_id) n on n.user_id = a.user_id
    where (a.running_chat, a.running_image, a.running_video, a.queued_chat, a.queued_image, a.queued_video)
      is distinct from (coalesce(n.rc, 0), coalesce(n.ri, 0), coalesce(n.rv, 0), coalesce(n.qc, 0), coalesce(n.qi, 0), coalesce(n.qv, 0))
  loop
    perform 1 from ${schema}.accounts where user_id = u for update;
    select
      count(*) filter (where modality = 'chat' and admitted) as rc, count(*) filter (where modality = 'image' and admitted) as ri,
      count(*) filter (where modality = 'video' and admitted) as rv, count(*) filter (where modality = 'chat' and not admitted) as qc,
      count(*) filter (where modality = 'image' and not admitted) as qi, count(*) filter (where modality = 'video' and not admitted) as qv
    into c from ${schema}.tasks where user_id = u and status in ('waiting', 'generating');
    update ${schema}.accounts set running_chat = c.rc, running_image = c.ri, running_video = c.rv, queued_chat = c.qc, queued_image = c.qi, queued_video = c.qv
      where user_id = u and (running_chat, running_image, running_video, queued_chat, queued_image, queued_video) is distinct from (c.rc, c.ri, c.rv, c.qc, c.qi, c.qv);
    if found then return next u; end if;
  end loop;
end $$;`;

/** gengate_submit_task(), created in the schema with its tables named in it (run again by adoptLegacyTables). */
export const submitTaskSql = (schema: string): string => `
create or replace function ${schema}.gengate_submit_task(
  p_task_id uuid, p_user_id uuid, p_api_key_id uuid, p_model_id text, p_modality text, p_request jsonb,
  p_callback_url text, p_quoted_micro bigint, p_quoted_cost_micro bigint,
  p_max_running integer, p_max_queued integer,
  p_job_schema text, p_job_name text, p_job_id uuid,
  p_idempotency_key text, p_request_hash text, p_response jsonb
) returns boolean language plpgsql as $$
declare
  earlier record;
  n_admitted integer;
  n_queued integer;
  admit boolean;
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
  -- The user's account row lock, held to the end of the transaction: admission counts cannot race, and
  -- the key check below sees a revocation that committed while this waited (a revoke takes this lock).
  perform 1 from ${schema}.accounts where user_id = p_user_id for update;
  -- A revoked key is refused before its user's balance is looked at (401, never 402), as over the unit of work.
  if p_api_key_id is not null and not exists (select 1 from ${schema}.api_keys where id = p_api_key_id and revoked_at is null) then
    raise exception using errcode = 'GG401', message = 'gengate: API key revoked';
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
  if not admit and n_queued >= p_max_queued then
    raise exception using errcode = 'GG429', message = 'gengate: queue full',
      detail = json_build_object('admitted', n_admitted, 'queued', n_queued)::text;
  end if;

  insert into ${schema}.tasks (id, user_id, api_key_id, model_id, modality, status, request, callback_url, quoted_micro, quoted_cost_micro, admitted)
    values (p_task_id, p_user_id, p_api_key_id, p_model_id, p_modality, 'waiting', p_request, p_callback_url, p_quoted_micro, p_quoted_cost_micro, admit);
  insert into ${schema}.holds (task_id, user_id, amount_micro, state) values (p_task_id, p_user_id, p_quoted_micro, 'held');
  -- A queued task gets its job when it is admitted; the one inserted with it goes.
  if not admit and p_job_id is not null then
    execute format('delete from %I.job where name = $1 and id = $2', p_job_schema) using p_job_name, p_job_id;
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

/** gengate_finish_success(), created in the schema with its tables named in it (run again by adoptLegacyTables). */
export const finishSuccessSql = (schema: string): string => `
create or replace function ${schema}.gengate_finish_success(
  p_task_id uuid, p_outputs jsonb, p_warnings jsonb, p_charged_micro bigint, p_charged_micro_usd bigint, p_cost_micro bigint,
  p_reported_cost_micro bigint, p_usage jsonb, p_metadata jsonb, p_at timestamptz, p_description text, p_transaction_id uuid
) returns void language plpgsql as $$
declare
  t record;
  acc ${schema}.accounts;
  held bigint;
  balance bigint;
  queued integer;
begin
  select user_id, modality into t from ${schema}.tasks where id = p_task_id;
  if not found then
    raise exception using errcode = 'GGEND', message = 'gengate: no such task';
  end if;
  select * into acc from ${schema}.accounts where user_id = t.user_id for update;
  queued := case t.modality when 'chat' then acc.queued_chat when 'image' then acc.queued_image else acc.queued_video end;
  if queued > 0 then
    raise exception using errcode = 'GGSLW', message = 'gengate: a queued task takes the freed slot';
  end if;
  update ${schema}.tasks set status = 'success', outputs = p_outputs, warnings = p_warnings, charged_micro = p_charged_micro, cost_micro = p_cost_micro,
      reported_cost_micro = p_reported_cost_micro, usage = p_usage, upstream_metadata = p_metadata, progress = null, finished_at = p_at
    where id = p_task_id and status = 'generating';
  if not found then
    raise exception using errcode = 'GGEND', message = 'gengate: the task had already ended';
  end if;
  update ${schema}.holds set state = 'settled', updated_at = now() where task_id = p_task_id and state = 'held' returning amount_micro into held;
  if found then
    if p_charged_micro > held then
      raise exception using errcode = 'GGSLW', message = 'gengate: the charge exceeds the hold';
    end if;
    insert into ${schema}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, task_id, description)
      values (p_transaction_id, t.user_id, -p_charged_micro, p_charged_micro_usd, 'usage', 'completed', p_task_id, p_description);
    update ${schema}.accounts set balance_micro = balance_micro - p_charged_micro, held_micro = held_micro - held
      where user_id = t.user_id returning balance_micro into balance;
  else
    balance := acc.balance_micro;
  end if;
  if exists (select 1 from ${schema}.balance_alerts where user_id = t.user_id
             and ((armed and balance < threshold_micro) or (not armed and balance >= threshold_micro))) then
    raise exception using errcode = 'GGSLW', message = 'gengate: a balance alert changes state';
  end if;
end $$;`;

/**
 * Submission in one statement, and the counts admission reads kept on the user's account row.
 *
 * Counts: each account row carries its user's unfinished tasks per modality, running (admitted) and
 * queued, kept by a trigger on tasks, so admission reads two integers instead of counting a backlog
 * under the account's lock. gengate_recount_active_tasks() repairs any drift user by user (maintenance).
 *
 * gengate_submit_task(): PgTaskIntake sends it in the same network round trip as BEGIN, the generation
 * job's insert and COMMIT. Refusals raise an exception with a gengate SQLSTATE, so the transaction (the
 * job insert included) rolls back:
 *   GG409 replay (detail: the earlier request_hash and response), GG410 idempotency race,
 *   GG402 insufficient credits, GG401 key revoked, GG429 queue full (detail: the counts).
 * Each statement in a PL/pgSQL function sees what committed before it started, so the key check
 * after the account's row lock sees a revocation that committed while the submission waited for it
 * (a revoke takes the same lock; PgKeyStore.revoke).
 *
 * gengate_finish_success(): PgTaskCompletion's common case in one statement (pipelined with BEGIN, the
 * callback job's insert and COMMIT): the task, the hold settled, the usage transaction and the balance.
 * When the user has a queued task (it would take the freed slot and need a job) or a balance alert would
 * change state, it raises GGSLW and the general path (over the unit of work) does the whole commit;
 * GGEND: the task had already ended.
 *
 * Lock order: whoever changes a user's tasks between unfinished and ended takes the user's account
 * row first (the counts trigger updates it), as submissions and revocations do.
 */
export const submitTaskFunction: Migration = {
  version: 12,
  name: 'unfinished-task counts on the account row; gengate_submit_task(): a submission in one statement',
  up: (schema) => `
alter table ${schema}.accounts
  add column running_chat integer not null default 0,
  add column running_image integer not null default 0,
  add column running_video integer not null default 0,
  add column queued_chat integer not null default 0,
  add column queued_image integer not null default 0,
  add column queued_video integer not null default 0;

${countActiveTasksSql(schema)}
create trigger tasks_count_active after insert or delete or update of status, admitted on ${schema}.tasks
  for each row execute function ${schema}.gengate_count_active_tasks();

-- Recounts (and corrects) the counts of users whose row disagrees with their tasks, each under its
-- account lock so no submission or task end interleaves. Returns the users it corrected.
${recountActiveTasksSql(schema)}
select count(*) from ${schema}.gengate_recount_active_tasks();

${submitTaskSql(schema)}

${finishSuccessSql(schema)}
`,
};
