import type { Migration } from './migration.js';
import { pendingTableSql } from './020-account-pending.js';

/**
 * Migration 020: a task's end appends to account_pending instead of waiting on the account row (020-account-pending.ts).
 * Its functions (gengate_fold_pending, gengate_admit_after_end and the new forms of the submission, the ends,
 * the counts trigger, the recount, the admission and the alert rule) are in functions/.
 */
export const settlementOffAccountRow: Migration = {
  version: 20,
  name: "settlement off the account row: a task's end appends its deltas, the next holder of the account lock folds them",
  up: (schema) => `
${pendingTableSql(schema)}
`,
};
