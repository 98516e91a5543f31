import type { Migration } from './migration.js';
import {
  admitAfterEndSql,
  admitQueuedSql,
  checkAlertsSql,
  countActiveTasksSql,
  foldPendingSql,
  pendingTableSql,
  recountActiveTasksSql,
} from './020-account-pending.js';
import { finishFailSql, finishSuccessSql, submitTaskSql } from './020-submit-and-finish.js';

/** Every function of this migration, in dependency order. */
export const settlementOffAccountRowSql = (schema: string): string =>
  [foldPendingSql, countActiveTasksSql, recountActiveTasksSql, admitQueuedSql, checkAlertsSql, admitAfterEndSql, submitTaskSql, finishSuccessSql, finishFailSql]
    .map((f) => f(schema))
    .join('\n');

/** Migration 020: a task's end appends to account_pending instead of waiting on the account row (020-account-pending.ts). */
export const settlementOffAccountRow: Migration = {
  version: 20,
  name: "settlement off the account row: a task's end appends its deltas, the next holder of the account lock folds them",
  up: (schema) => `
${pendingTableSql(schema)}
${settlementOffAccountRowSql(schema)}
`,
};
