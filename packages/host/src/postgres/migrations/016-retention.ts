import type { Migration } from './migration.js';

/**
 * Retention (maintenance step `purge-ended-tasks`): ended tasks older than RETENTION_DAYS are deleted
 * with their holds and callback attempts. The ledger is never purged, so a usage transaction keeps its
 * task's id as a plain value: the foreign key from transactions to tasks goes. Indexes let the purge
 * find ended tasks oldest first and the metrics count outstanding holds without a scan; `if not exists`
 * lets an operator of a large database build them beforehand with CREATE INDEX CONCURRENTLY (a plain
 * CREATE INDEX here blocks writes to the table while it builds; docs/deployment.md, Upgrades).
 */
export const retention: Migration = {
  version: 16,
  name: 'retention: the ledger outlives purged tasks; indexes for ended tasks and outstanding holds',
  up: (schema) => `
alter table ${schema}.transactions drop constraint if exists transactions_task_id_fkey;
create index if not exists tasks_ended on ${schema}.tasks (finished_at) where status in ('success', 'fail');
create index if not exists holds_outstanding on ${schema}.holds (task_id) where state = 'held';
`,
};
