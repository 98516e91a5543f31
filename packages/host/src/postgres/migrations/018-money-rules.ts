import type { Migration } from './migration.js';

/*
 * The money rules on PostgreSQL, one home each (migration 018). Their bodies are in functions/ now, one
 * file each, in their current forms (this migration's were removed from it when functions/ became their
 * home; the functions are defined by runMigrations before any migration runs). The PostgreSQL implementations of the
 * TaskIntake and TaskCompletion ports (PgTaskIntake, PgTaskCompletion) only call these functions; the
 * unit-of-work implementations in core are the same rules for memory and custom stores, and the contract
 * suite compares the two.
 *
 *   gengate_enqueue_job        a pg-boss job row, the one boss.send() inserts (pg-boss 12.35 insertJobs,
 *                              queue notify off): every queue setting read from the queue's row.
 *   gengate_complete_job       the fetched attempt of a job completed as pg-boss's own complete() does
 *                              (fenced: a job no longer active under that attempt is left alone).
 *   gengate_admit_queued       the user's queued tasks admitted into the free running slots, oldest
 *                              first, each with its generation job.
 *   gengate_check_alerts       an armed alert crossed downwards disarms and gets ONE mail job; a disarmed
 *                              alert whose threshold the balance is back at re-arms.
 *   gengate_submit_task        idempotency window, hold, key revocation check, admission or queue, the
 *                              task, its generation job only when admitted, the idempotency record.
 *   gengate_finish_success     the task, the charge (never above the hold) with the hold settled, alerts,
 *                              callback job, admission of the next queued task, the job completed.
 *   gengate_finish_fail        the task, the hold released, callback job, admission of the next queued
 *                              task, the job completed (failure, cancel, sweep, exhausted jobs).
 *
 * Queue names are written here as the host names them (jobs are stored under them, so they never change):
 * gengate-generate, gengate-callback, gengate-alert-mail. The pg-boss schema is a parameter (null: a
 * process without a job queue; a job it would need raises GGNJQ).
 *
 * Lock order as before: the user's account row first, then the task rows (the counts trigger of 012).
 */

export const moneyRules: Migration = {
  version: 18,
  name: 'money rules in one place: submission, success and failure functions that write their own jobs',
  up: () => `
-- Functions only (functions/): gengate_enqueue_job, gengate_complete_job, gengate_admit_queued, gengate_check_alerts,
-- gengate_submit_task, gengate_finish_success, gengate_finish_fail. 012's overloads are dropped as stale.
select 1;
`,
};
