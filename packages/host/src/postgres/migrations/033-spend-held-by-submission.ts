import type { Migration } from './migration.js';

/*
 * A submission adds its hold to its key's and its member's spend rows itself (issue 23, the submission's time in
 * PostgreSQL). The holds' spend triggers (019, 026) did it on the hold's insert, in two statements of their own
 * per hold: the spend row's upsert and a fold of that row's pending rows (029); by pg_stat_statements the key's
 * trigger was the second dearest step of a submission after the task's insert. Now gengate_submit_locked_task
 * upserts the spend rows (functions/spend-triggers.ts: keySpendHeld, memberSpendHeld, the trigger's own
 * statement), the submission folds the organization's pending spend rows once per batch
 * (gengate_fold_spend_pending), and the triggers fire on update only: a hold moving period or identity, or
 * leaving 'held'. Every other insert of a hold (PgBillingLedger.hold, the path for replaced stores) writes
 * no period, so the triggers had nothing to do on it.
 */
export const spendHeldBySubmission: Migration = {
  version: 33,
  name: "a submission adds its hold to its spend rows itself; the holds' spend triggers fire on update only",
  up: (schema) => `
drop trigger holds_key_spend on ${schema}.holds;
create trigger holds_key_spend after update of state, api_key_id, key_period_start on ${schema}.holds
  for each row execute function ${schema}.gengate_key_spend_hold();
drop trigger holds_member_spend on ${schema}.holds;
create trigger holds_member_spend after update of state, member_id, member_period_start on ${schema}.holds
  for each row execute function ${schema}.gengate_member_spend_hold();
`,
};
