import type { Migration } from './migration.js';

export const callbacks: Migration = {
  version: 3,
  name: 'callback signing secrets and delivery attempts',
  up: (schema) => `
alter table ${schema}.users add column webhook_secret text;
create table ${schema}.callback_attempts (
  id bigserial primary key,
  task_id uuid not null references ${schema}.tasks(id),
  url text not null,
  status_code integer,
  delivered boolean not null,
  error text,
  duration_ms integer not null,
  created_at timestamptz not null default clock_timestamp()
);
create index callback_attempts_task on ${schema}.callback_attempts (task_id, id);
`,
};
