import type { Migration } from './migration.js';

export const secretsAndSweep: Migration = {
  version: 6,
  name: 'server secrets (result URL signing), bookkeeping and indexes for the maintenance sweep',
  up: (schema) => `
-- Secrets every process of one deployment shares (created once, on first use, by the application).
create table ${schema}.gengate_secrets (
  name text primary key,
  value bytea not null,
  created_at timestamptz not null default now()
);

-- Set once the files of a failed task are deleted for good (after no worker can still write them).
alter table ${schema}.tasks add column files_swept_at timestamptz;
create index tasks_failed_unswept on ${schema}.tasks (finished_at) where status = 'fail' and files_swept_at is null;

create index callback_attempts_created on ${schema}.callback_attempts (created_at);
`,
};
