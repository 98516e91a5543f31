import type { SqlFunction } from './sql-function.js';
import { slotsLock } from './slots-lock.js';

/**
 * A key's own checks at submission (019): revoked or gone (GG401; read with the rest of the key's row, not
 * by a statement of its own), allow-lists (GGK03 model, GGK04 provider, GGK05 modality), concurrency
 * (GGK29: its tasks waiting or generating, with `p_unwritten_keys`' entries of it, the tasks its caller's
 * batch accepted and has not written yet), spend limit of the UTC period (GGK02), and the period's one
 * soft-threshold mail. Returns the period start the hold counts in. The memory twin is core's keys/key-admission.ts.
 */
export const keyBudgetAdmit: SqlFunction = {
  name: 'gengate_key_budget_admit',
  identityArgs: 'uuid, text, text, text, bigint, timestamptz, text, uuid[]',
  sql: (schema) => `
create or replace function ${schema}.gengate_key_budget_admit(
  p_key uuid, p_model_id text, p_provider_id text, p_modality text, p_quoted_micro bigint, p_at timestamptz,
  p_boss text, p_unwritten_keys uuid[]
) returns timestamptz
language plpgsql as $$
declare
  k record;
  v_period timestamptz;
  v_active integer;
  v_spent bigint;
  v_alerted boolean;
  v_end timestamptz;
begin
  select user_id, spend_limit_micro, budget_period, soft_threshold_percent, allowed_models, allowed_providers, allowed_modalities, max_concurrent_tasks, revoked_at
    into k from ${schema}.api_keys where id = p_key;
  if not found or k.revoked_at is not null then
    raise exception using errcode = 'GG401', message = 'gengate: API key revoked';
  end if;
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
    -- With the tasks of the caller's batch accepted before this one and not written yet (submission-rows.ts).
    v_active := v_active + coalesce(array_length(array_positions(p_unwritten_keys, p_key), 1), 0);
    if v_active >= k.max_concurrent_tasks then
      raise exception using errcode = 'GGK29', message = 'gengate: key concurrency exceeded', detail = json_build_object('limit', k.max_concurrent_tasks)::text;
    end if;
  end if;
  -- The period's spend is read only against a limit: without one, nothing below uses it.
  if k.spend_limit_micro is null then return v_period; end if;
  select held_micro + charged_micro, soft_alerted into v_spent, v_alerted from ${schema}.key_spend_totals where api_key_id = p_key and period_start = v_period;
  v_spent := coalesce(v_spent, 0);
  if v_spent + p_quoted_micro > k.spend_limit_micro then
    v_end := case k.budget_period when 'day' then v_period + interval '1 day' when 'week' then v_period + interval '7 days'
      when 'month' then v_period + interval '1 month' else null end;
    raise exception using errcode = 'GGK02', message = 'gengate: key budget exceeded',
      detail = json_build_object('limit', k.spend_limit_micro, 'spent', v_spent, 'resetsAtMs', (extract(epoch from v_end) * 1000)::bigint)::text;
  end if;
  -- The period's one soft-threshold mail: floor(limit * percent / 100), reached by this hold.
  if k.soft_threshold_percent is not null and not coalesce(v_alerted, false)
     and v_spent + p_quoted_micro >= (k.spend_limit_micro * k.soft_threshold_percent) / 100 then
    -- The user's slots lock (migration 020) before key_spend is written: every writer of key_spend that
    -- also takes that lock takes it first, so a submission and an end never wait on each other in a circle.
    ${slotsLock('k.user_id', 'exclusive')}
    insert into ${schema}.key_spend (api_key_id, period_start, soft_alerted) values (p_key, v_period, true)
      on conflict (api_key_id, period_start) do update set soft_alerted = true;
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-alert-mail', gen_random_uuid(),
      jsonb_build_object('keyMail', jsonb_build_object('keyId', p_key, 'userId', k.user_id,
        'periodStart', to_char(v_period at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'spentMicro', v_spent + p_quoted_micro, 'limitMicro', k.spend_limit_micro)), null, null);
  end if;
  return v_period;
end $$;`,
};
