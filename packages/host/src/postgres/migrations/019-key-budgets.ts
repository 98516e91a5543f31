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
 * The functions named here are in functions/ (their current forms; this migration's bodies were removed
 * from it when functions/ became their one home).
 *
 * Settlement (gengate_finish_success / _fail of 018) is unchanged: the triggers move a hold's amount out
 * of held_micro when it leaves 'held' and add a usage charge to charged_micro.
 */

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

-- gengate_key_period_start, gengate_key_spend_hold, gengate_key_spend_charge, gengate_key_budget_admit: functions/
create trigger holds_key_spend after insert or update of state, api_key_id, key_period_start on ${schema}.holds
  for each row execute function ${schema}.gengate_key_spend_hold();
create trigger transactions_key_spend after insert on ${schema}.transactions
  for each row when (new.payment_method = 'usage' and new.task_id is not null) execute function ${schema}.gengate_key_spend_charge();
`,
};
