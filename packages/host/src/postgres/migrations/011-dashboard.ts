import type { Migration } from './migration.js';

export const dashboard: Migration = {
  version: 11,
  name: 'dashboard: user roles, sign-in links and sessions (hashes only), task list indexes',
  up: (schema) => `
alter table ${schema}.users add column role text not null default 'user' check (role in ('user', 'operator'));

-- One-time sign-in links: only the SHA-256 of the token is kept; used_at makes a link single-use.
create table ${schema}.sign_in_tokens (
  token_hash text primary key,
  email text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index sign_in_tokens_email on ${schema}.sign_in_tokens (email, created_at);
create index sign_in_tokens_expiry on ${schema}.sign_in_tokens (expires_at);

-- Dashboard sessions: the cookie's secret is never stored, only its SHA-256.
create table ${schema}.dashboard_sessions (
  id_hash text primary key,
  user_id uuid not null references ${schema}.users(id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index dashboard_sessions_user on ${schema}.dashboard_sessions (user_id);
create index dashboard_sessions_expiry on ${schema}.dashboard_sessions (expires_at);

-- GET /run/tasks: a user's tasks newest first, filtered by status or model (tasks_user covers the unfiltered list).
create index tasks_user_status on ${schema}.tasks (user_id, status, created_at desc, id desc);
create index tasks_user_model on ${schema}.tasks (user_id, model_id, created_at desc, id desc);
-- The operator's recent failures.
create index tasks_failed_recent on ${schema}.tasks (finished_at) where status = 'fail';
`,
};
