import type { Migration } from './migration.js';

/*
 * Per-key spend controls (issue 22), enforced where the credits are held: in gengate_submit_task's
 * transaction, after the user's account lock, so concurrent submissions of one key (always one user)
 * see each other's holds and no budget or concurrency cap can be overshot.
 *
 *   api_keys              + spend_limit_micro, budget_period, soft_threshold_percent, allowed_models,
 *                           allowed_providers, allowed_modalities, max_concurrent_tasks.
 *   holds                 + api_key_id, key_period_start: the key and budget period a hold counts in
 *                           (the period the submission fell in; its later charge counts there too).
 *   key_spend             per key and period: held_micro (open holds) and charged_micro (usage charges of
 *                           settled holds), kept by two triggers so every path that settles or releases a
 *                           hold (the SQL functions, the unit of work's ledger, a revocation) keeps it
 *                           exact; soft_alerted: the period's one soft-threshold mail was enqueued.
 *   gengate_key_period_start(period, at)   UTC boundaries: day 00:00, week Monday 00:00, month the 1st.
 *   gengate_key_budget_admit(...)          the key's checks (allow-lists, concurrency, spend limit) and
 *                           the soft-threshold mail; raises GGK01/GGK03/GGK04/GGK05 (allow-lists), GGK29
 *                           (concurrency), GGK02 (budget) to refuse; returns the period start. The memory
 *                           twin is core's keys/key-admission.ts.
 *   gengate_submit_task   018's, with p_at (the injected clock's time) and, for a keyed submission, a call
 *                           to gengate_key_budget_admit after the revocation check and before the balance
 *                           hold, and the hold inserted with its key and period. Nothing else changed.
 *
 * Settlement (gengate_finish_success / _fail of 018) is unchanged: the triggers move a hold's amount out
 * of held_micro when it leaves 'held' and add a usage charge to charged_micro.
 */

const periodStartSql = (schema: string) => `
create or replace function ${schema}.gengate_key_period_start(p_period text, p_at timestamptz) returns timestamptz
language sql immutable as $$
  select case p_period
    when 'day' then date_trunc('day', p_at at time zone 'UTC') at time zone 'UTC'
    when 'week' then date_trunc('week', p_at at time zone 'UTC') at time zone 'UTC'
    when 'month' then date_trunc('month', p_at at time zone 'UTC') at time zone 'UTC'
    else timestamptz '1970-01-01 00:00:00+00'
  end
$$;`;

const spendTriggersSql = (schema: string) => `
create or replace function ${schema}.gengate_key_spend_hold() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.key_period_start is not null and old.state = 'held' then
    update ${schema}.key_spend set held_micro = held_micro - old.amount_micro
      where api_key_id = old.api_key_id and period_start = old.key_period_start;
  end if;
  if new.key_period_start is not null and new.state = 'held' then
    insert into ${schema}.key_spend (api_key_id, period_start, held_micro) values (new.api_key_id, new.key_period_start, new.amount_micro)
      on conflict (api_key_id, period_start) do update set held_micro = key_spend.held_micro + excluded.held_micro;
  end if;
  return null;
end $$;

create or replace function ${schema}.gengate_key_spend_charge() returns trigger language plpgsql as $$
begin
  update ${schema}.key_spend s set charged_micro = s.charged_micro - new.credits_micro
    from ${schema}.holds h
    where h.task_id = new.task_id and h.key_period_start is not null and s.api_key_id = h.api_key_id and s.period_start = h.key_period_start;
  return null;
end $$;`;

const admitSql = (schema: string) => `
create or replace function ${schema}.gengate_key_budget_admit(
  p_key uuid, p_model_id text, p_provider_id text, p_modality text, p_quoted_micro bigint, p_at timestamptz, p_boss text
) returns timestamptz language plpgsql as $$
declare
  k record;
  v_period timestamptz;
  v_active integer;
  v_spent bigint;
  v_alerted boolean;
  v_end timestamptz;
begin
  select user_id, spend_limit_micro, budget_period, soft_threshold_percent, allowed_models, allowed_providers, allowed_modalities, max_concurrent_tasks
    into k from ${schema}.api_keys where id = p_key;
  if not found then return null; end if;
  if k.allowed_models is not null and not (p_model_id = any(k.allowed_models)) then
    raise exception using errcode = 'GGK03', message = 'gengate: model not allowed for key', detail = json_build_object('allowed', k.allowed_models)::text;
  end if;
  if k.allowed_providers is not null and not (p_provider_id = any(k.allowed_providers)) then
    raise exception using errcode = 'GGK04', message = 'gengate: provider not allowed for key', detail = json_build_object('allowed', k.allowed_providers)::text;
  end if;
  if k.allowed_modalities is not null and not (p_modality = any(k.allowed_modalities)) then
    raise exception using errcode = 'GGK05', message = 'gengate: modality not allowed for key', detail = json_build_object('allowed', k.allowed_modalities)::text;
  end if;
  v_period := ${schema}.gengate_key_period_start(k.budget_period, p_at);
  if k.max_concurrent_tasks is not null then
    select count(*) into v_active from ${schema}.tasks where api_key_id = p_key and status in ('waiting', 'generating');
    if v_active >= k.max_concurrent_tasks then
      raise exception using errcode = 'GGK29', message = 'gengate: key concurrency exceeded', detail = json_build_object('limit', k.max_concurrent_tasks)::text;
    end if;
  end if;
  select held_micro + charged_micro, soft_alerted into v_spent, v_alerted from ${schema}.key_spend where api_key_id = p_key and period_start = v_period;
  v_spent := coalesce(v_spent, 0);
  if k.spend_limit_micro is not null and v_spent + p_quoted_micro > k.spend_limit_micro then
    v_end := case k.budget_period when 'day' then v_period + interval '1 day' when 'week' then v_period + interval '7 days'
      when 'month' then v_period + interval '1 month' else null end;
    raise exception using errcode = 'GGK02', message = 'gengate: key budget exceeded',
      detail = json_build_object('limit', k.spend_limit_micro, 'spent', v_spent, 'resetsAtMs', (extract(epoch from v_end) * 1000)::bigint)::text;
  end if;
  -- The period's one soft-threshold mail: floor(limit * percent / 100), reached by this hold.
  if k.spend_limit_micro is not null and k.soft_threshold_percent is not null and not coalesce(v_alerted, false)
     and v_spent + p_quoted_micro >= (k.spend_limit_micro * k.soft_threshold_percent) / 100 then
    -- The user's slots lock (migration 020) before key_spend is written: every writer of key_spend that
    -- also takes that lock takes it first, so a submission and an end never wait on each other in a circle.
    perform pg_advisory_xact_lock(hashtextextended('gengate-slots:' || k.user_id::text, 0));
    insert into ${schema}.key_spend (api_key_id, period_start, soft_alerted) values (p_key, v_period, true)
      on conflict (api_key_id, period_start) do update set soft_alerted = true;
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-alert-mail', gen_random_uuid(),
      jsonb_build_object('keyMail', jsonb_build_object('keyId', p_key, 'userId', k.user_id,
        'periodStart', to_char(v_period at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'spentMicro', v_spent + p_quoted_micro, 'limitMicro', k.spend_limit_micro)), null, null);
  end if;
  return v_period;
end $$;`;

/** 018's gengate_submit_task with p_at and the key's admission (see the header). */
export const submitTaskSql = (schema: string) => `
create or replace function ${schema}.gengate_submit_task(
  p_task_id uuid, p_user_id uuid, p_api_key_id uuid, p_model_id text, p_modality text, p_request jsonb,
  p_callback_url text, p_quoted_micro bigint, p_quoted_cost_micro bigint,
  p_max_running integer, p_max_queued integer,
  p_boss text, p_job_id uuid, p_provider_id text,
  p_idempotency_key text, p_request_hash text, p_response jsonb, p_at timestamptz
) returns boolean language plpgsql as $$
declare
  earlier record;
  n_admitted integer;
  n_queued integer;
  admit boolean;
  v_key_period timestamptz;
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
  perform 1 from ${schema}.accounts where user_id = p_user_id for update;
  if p_api_key_id is not null and not exists (select 1 from ${schema}.api_keys where id = p_api_key_id and revoked_at is null) then
    raise exception using errcode = 'GG401', message = 'gengate: API key revoked';
  end if;
  -- The key's own controls, under the account lock (every submission of a key is its user's).
  if p_api_key_id is not null then
    v_key_period := ${schema}.gengate_key_budget_admit(p_api_key_id, p_model_id, p_provider_id, p_modality, p_quoted_micro, p_at, p_boss);
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
  insert into ${schema}.holds (task_id, user_id, amount_micro, state, api_key_id, key_period_start)
    values (p_task_id, p_user_id, p_quoted_micro, 'held', p_api_key_id, v_key_period);
  if admit and p_job_id is not null then
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-generate', p_job_id, jsonb_build_object('taskId', p_task_id), p_provider_id, p_provider_id);
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

export const keyBudgets: Migration = {
  version: 19,
  name: 'per-key spend controls: spend limit per UTC period, allow-lists, concurrency cap, soft threshold, held at submission',
  up: (schema) => `
alter table ${schema}.api_keys
  add column spend_limit_micro bigint check (spend_limit_micro > 0),
  add column budget_period text not null default 'none' check (budget_period in ('day', 'week', 'month', 'none')),
  add column soft_threshold_percent integer check (soft_threshold_percent between 1 and 100),
  add column allowed_models text[],
  add column allowed_providers text[],
  add column allowed_modalities text[],
  add column max_concurrent_tasks integer check (max_concurrent_tasks > 0);

alter table ${schema}.holds add column api_key_id uuid, add column key_period_start timestamptz;

create table ${schema}.key_spend (
  api_key_id uuid not null,
  period_start timestamptz not null,
  held_micro bigint not null default 0 check (held_micro >= 0),
  charged_micro bigint not null default 0 check (charged_micro >= 0),
  soft_alerted boolean not null default false,
  primary key (api_key_id, period_start)
);

-- The concurrency cap counts a key's unfinished tasks.
create index tasks_key_active on ${schema}.tasks (api_key_id) where status in ('waiting', 'generating');

${periodStartSql(schema)}
${spendTriggersSql(schema)}
create trigger holds_key_spend after insert or update of state, api_key_id, key_period_start on ${schema}.holds
  for each row execute function ${schema}.gengate_key_spend_hold();
create trigger transactions_key_spend after insert on ${schema}.transactions
  for each row when (new.payment_method = 'usage' and new.task_id is not null) execute function ${schema}.gengate_key_spend_charge();
${admitSql(schema)}
drop function ${schema}.gengate_submit_task(uuid, uuid, uuid, text, text, jsonb, text, bigint, bigint, integer, integer, text, uuid, text, text, text, jsonb);
${submitTaskSql(schema)}
`,
};
