import type { Migration } from './migration.js';

export const idempotency: Migration = {
  version: 4,
  name: 'idempotency keys of run requests',
  up: (schema) => `
create table ${schema}.idempotency_keys (
  user_id uuid not null references ${schema}.users(id),
  key text not null,
  request_hash text not null,
  response jsonb not null,
  created_at timestamptz not null default now(),
  primary key (user_id, key)
);
create index idempotency_keys_created on ${schema}.idempotency_keys (created_at);
`,
};
