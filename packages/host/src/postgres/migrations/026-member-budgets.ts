import type { Migration } from './migration.js';

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
 *
 * The functions are in functions/ (their current forms; this migration's bodies, here and in 026-submit-task.ts,
 * were removed when functions/ became their one home; the old signatures are dropped there as stale).
 */

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

-- gengate_member_spend_hold, gengate_member_spend_charge, gengate_member_budget_admit: functions/
create trigger holds_member_spend after insert or update of state, member_id, member_period_start on ${schema}.holds
  for each row execute function ${schema}.gengate_member_spend_hold();
create trigger transactions_member_spend after insert on ${schema}.transactions
  for each row when (new.payment_method = 'usage' and new.task_id is not null) execute function ${schema}.gengate_member_spend_charge();
`,
};
