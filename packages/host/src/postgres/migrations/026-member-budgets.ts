import type { Migration } from './migration.js';
import { submitTaskSql, submitTaskTracedSql } from './026-submit-task.js';

/*
 * Member spend limits (issue 22, docs/organizations.md "Member spend limits"), enforced where the credits
 * are held, exactly like 019's key budgets: in gengate_submit_task's transaction, under the organization's
 * account lock (every submission of a member of an organization is that organization's), so concurrent
 * submissions over several keys of one member see each other's holds and the limit cannot be overshot.
 *
 *   holds          + member_id, member_period_start: the member and the member's budget period a hold counts
 *                    in (the period the submission fell in, by the member's budget_period then; its later
 *                    charge counts there too). Null period: not counted (the submitter is no member).
 *   member_spend   per (organization, member, period): held_micro (open holds) and charged_micro (usage
 *                  charges of settled holds), kept by two triggers like key_spend's, so every path that
 *                  settles or releases a hold keeps it exact. The triggers are named to fire after 019's
 *                  (holds_key_spend, transactions_key_spend: PostgreSQL fires a table's triggers by name), so
 *                  every writer updates key_spend, then member_spend; an end takes its user's slots lock
 *                  before either (020, commit 6ea0a6a), and a queueing submission takes it before the hold
 *                  insert writes them: one order everywhere. The admission below only reads member_spend.
 *   gengate_member_budget_admit(org, member, quote, at)   the member's spend limit of the period `at` falls
 *                  in (organization_members.spend_limit_micro per budget_period, UTC boundaries of
 *                  gengate_key_period_start): raises GGM02 when held + charged + the quote would pass it;
 *                  returns the period start (null when the submitter is not a member, or in a personal organization
 *                  without a limit: its member spend is not kept). The memory twin is
 *                  core's members/member-admission.ts.
 *   gengate_submit_task   020's body with p_member_id (last parameter; null = p_user_id): writes
 *                  tasks.member_id (always, the member's id) and the hold's member columns, and calls the
 *                  member's admission after the key's and before the balance hold. The old signature is
 *                  dropped; gengate_submit_task_traced (024) is re-created with the same new parameter.
 */

const spendTriggersSql = (schema: string) => `
create or replace function ${schema}.gengate_member_spend_hold() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.member_period_start is not null and old.state = 'held' then
    update ${schema}.member_spend set held_micro = held_micro - old.amount_micro
      where organization_id = old.user_id and member_id = old.member_id and period_start = old.member_period_start;
  end if;
  if new.member_period_start is not null and new.state = 'held' then
    insert into ${schema}.member_spend (organization_id, member_id, period_start, held_micro)
      values (new.user_id, new.member_id, new.member_period_start, new.amount_micro)
      on conflict (organization_id, member_id, period_start) do update set held_micro = member_spend.held_micro + excluded.held_micro;
  end if;
  return null;
end $$;

create or replace function ${schema}.gengate_member_spend_charge() returns trigger language plpgsql as $$
begin
  update ${schema}.member_spend s set charged_micro = s.charged_micro - new.credits_micro
    from ${schema}.holds h
    where h.task_id = new.task_id and h.member_period_start is not null
      and s.organization_id = h.user_id and s.member_id = h.member_id and s.period_start = h.member_period_start;
  return null;
end $$;`;

const admitSql = (schema: string) => `
create or replace function ${schema}.gengate_member_budget_admit(
  p_organization uuid, p_member uuid, p_quoted_micro bigint, p_at timestamptz
) returns timestamptz language plpgsql as $$
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
  select held_micro + charged_micro into v_spent from ${schema}.member_spend
    where organization_id = p_organization and member_id = p_member and period_start = v_period;
  v_spent := coalesce(v_spent, 0);
  if v_spent + p_quoted_micro > m.spend_limit_micro then
    v_end := case m.budget_period when 'day' then v_period + interval '1 day' when 'week' then v_period + interval '7 days'
      when 'month' then v_period + interval '1 month' else null end;
    raise exception using errcode = 'GGM02', message = 'gengate: member budget exceeded',
      detail = json_build_object('limit', m.spend_limit_micro, 'spent', v_spent, 'resetsAtMs', (extract(epoch from v_end) * 1000)::bigint)::text;
  end if;
  return v_period;
end $$;`;

export const memberBudgets: Migration = {
  version: 26,
  name: "member spend limits: the member's held and charged credits per UTC period, checked in the submission's transaction",
  up: (schema) => `
alter table ${schema}.holds add column member_id uuid, add column member_period_start timestamptz;

create table ${schema}.member_spend (
  organization_id uuid not null,
  member_id uuid not null,
  period_start timestamptz not null,
  held_micro bigint not null default 0 check (held_micro >= 0),
  charged_micro bigint not null default 0 check (charged_micro >= 0),
  primary key (organization_id, member_id, period_start)
);

${spendTriggersSql(schema)}
create trigger holds_member_spend after insert or update of state, member_id, member_period_start on ${schema}.holds
  for each row execute function ${schema}.gengate_member_spend_hold();
create trigger transactions_member_spend after insert on ${schema}.transactions
  for each row when (new.payment_method = 'usage' and new.task_id is not null) execute function ${schema}.gengate_member_spend_charge();
${admitSql(schema)}
drop function ${schema}.gengate_submit_task_traced(text, uuid, uuid, uuid, text, text, jsonb, text, bigint, bigint, integer, integer, text, uuid, text, text, text, jsonb, timestamptz);
drop function ${schema}.gengate_submit_task(uuid, uuid, uuid, text, text, jsonb, text, bigint, bigint, integer, integer, text, uuid, text, text, text, jsonb, timestamptz);
${submitTaskSql(schema)}
${submitTaskTracedSql(schema)}
`,
};
