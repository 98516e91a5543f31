import type { SqlFunction } from './sql-function.js';

/**
 * A member's spend limit at submission (026): GGM02 when held + charged + the quote would pass the member's
 * limit of the period; returns the period start (null: the submitter is no member, or a personal organization
 * without a limit, whose member spend is not kept). The memory twin is core's members/member-admission.ts.
 */
export const memberBudgetAdmit: SqlFunction = {
  name: 'gengate_member_budget_admit',
  identityArgs: 'uuid, uuid, bigint, timestamptz',
  sql: (schema) => `
create or replace function ${schema}.gengate_member_budget_admit(p_organization uuid, p_member uuid, p_quoted_micro bigint, p_at timestamptz) returns timestamptz
language plpgsql as $$
declare
  m record;
  v_period timestamptz;
  v_spent bigint;
  v_end timestamptz;
begin
  select spend_limit_micro, budget_period into m from ${schema}.organization_members where organization_id = p_organization and user_id = p_member;
  if not found then return null; end if;
  -- A personal organization (its id is its one member's) keeps its member's spend only while a limit is
  -- set: most submissions are personal ones without a limit, and they write no member_spend row.
  if p_member = p_organization and m.spend_limit_micro is null then return null; end if;
  v_period := ${schema}.gengate_key_period_start(m.budget_period, p_at);
  if m.spend_limit_micro is null then return v_period; end if;
  select held_micro + charged_micro into v_spent from ${schema}.member_spend_totals
    where organization_id = p_organization and member_id = p_member and period_start = v_period;
  v_spent := coalesce(v_spent, 0);
  if v_spent + p_quoted_micro > m.spend_limit_micro then
    v_end := case m.budget_period when 'day' then v_period + interval '1 day' when 'week' then v_period + interval '7 days'
      when 'month' then v_period + interval '1 month' else null end;
    raise exception using errcode = 'GGM02', message = 'gengate: member budget exceeded',
      detail = json_build_object('limit', m.spend_limit_micro, 'spent', v_spent, 'resetsAtMs', (extract(epoch from v_end) * 1000)::bigint)::text;
  end if;
  return v_period;
end $$;`,
};
