import type { Migration } from './migration.js';

export const initial: Migration = {
  version: 1,
  name: 'initial schema: users, keys, accounts, tasks, holds, transactions, alerts',
  up: (schema) => `
create table ${schema}.users (
  id uuid primary key,
  email text not null,
  created_at timestamptz not null default now()
);
create unique index users_email_lower on ${schema}.users (lower(email));

create table ${schema}.api_keys (
  id uuid primary key,
  user_id uuid not null references ${schema}.users(id),
  name text not null,
  secret_hash text not null unique,
  mask text not null,
  rate_limit_per_minute integer check (rate_limit_per_minute > 0),
  rate_limit_per_hour integer check (rate_limit_per_hour > 0),
  rate_limit_per_day integer check (rate_limit_per_day > 0),
  ip_whitelist text[] not null default '{}',
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_user on ${schema}.api_keys (user_id, created_at desc) where revoked_at is null;

create table ${schema}.accounts (
  user_id uuid primary key references ${schema}.users(id),
  balance_micro bigint not null default 0,
  held_micro bigint not null default 0 check (held_micro >= 0)
);

create table ${schema}.tasks (
  id uuid primary key,
  user_id uuid not null references ${schema}.users(id),
  api_key_id uuid references ${schema}.api_keys(id),
  model_id text not null,
  modality text not null check (modality in ('video', 'image', 'chat')),
  status text not null check (status in ('waiting', 'generating', 'success', 'fail')),
  request jsonb not null,
  callback_url text,
  quoted_micro bigint not null check (quoted_micro >= 0),
  charged_micro bigint,
  outputs jsonb not null default '[]',
  warnings jsonb not null default '[]',
  error_message text,
  upstream_handle jsonb,
  attempts integer not null default 0,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index tasks_user on ${schema}.tasks (user_id, created_at desc);
create index tasks_unfinished on ${schema}.tasks (created_at) where status in ('waiting', 'generating');

create table ${schema}.holds (
  task_id uuid primary key references ${schema}.tasks(id) deferrable initially deferred,
  user_id uuid not null references ${schema}.users(id),
  amount_micro bigint not null check (amount_micro >= 0),
  state text not null check (state in ('held', 'settled', 'released')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table ${schema}.transactions (
  id uuid primary key,
  user_id uuid not null references ${schema}.users(id),
  credits_micro bigint not null,
  amount_micro_usd bigint not null check (amount_micro_usd >= 0),
  payment_method text not null,
  status text not null check (status in ('pending', 'completed', 'failed')),
  task_id uuid references ${schema}.tasks(id),
  description text,
  external_ref text unique,
  created_at timestamptz not null default clock_timestamp()
);
create index transactions_user on ${schema}.transactions (user_id, created_at desc, id desc);
create unique index transactions_one_usage_per_task on ${schema}.transactions (task_id) where payment_method = 'usage';

create table ${schema}.balance_alerts (
  id uuid primary key,
  user_id uuid not null references ${schema}.users(id),
  threshold_micro bigint not null check (threshold_micro > 0),
  armed boolean not null,
  created_at timestamptz not null default now()
);
create index balance_alerts_user on ${schema}.balance_alerts (user_id);
`,
};
