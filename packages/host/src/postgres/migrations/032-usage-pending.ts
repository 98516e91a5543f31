import type { Migration } from './migration.js';

/*
 * Usage rollups off a task's end (issue 23, the pipeline). Every end upserted the same two rollup rows (its
 * hour's and its day's, per user, key, model, provider and member) at COMMIT: the end batches of a busy key
 * waited for each other's commit on those rows (row lock, WAL flush included), and the two upserts were a
 * tenth of an end's time in PostgreSQL. As 020 and 029 did for the account and spend rows, an end now appends
 * its usage to `usage_rollup_pending`, insert only (the rollup trigger, functions/usage-rollup.ts); the
 * rollups plus the pending rows are the usage (pg-usage-reader.ts reads both in one statement);
 * gengate_fold_usage_pending (functions/fold-usage-pending.ts) moves the pending rows into the hourly and
 * daily rows in one transaction, every few seconds on a worker process and at each maintenance sweep.
 * The rows have the hourly rollups' columns and no index: a fold deletes them all, and a reader scans the
 * few seconds' worth that are left.
 */
export const usagePending: Migration = {
  version: 32,
  name: "a task's end appends its usage to usage_rollup_pending, folded into the hourly and daily rollups",
  up: (schema) => `
-- The hourly rollups' columns (with 027's member_id), NOT NULL as there; no key, no index, no check.
create table ${schema}.usage_rollup_pending (like ${schema}.usage_rollups);
`,
};
