import type { Migration } from './migration.js';

export const routeHealth: Migration = {
  version: 22,
  name: 'route health: the routes’ circuit breakers shared by every process, and their per-second tallies',
  up: (schema) => `
-- One row per route (the catalog id of a provider model): its breaker, as every API and worker process
-- sees it. Processes cache it (refreshed every second); the transitions are compare-and-set updates on it,
-- so exactly one process opens a breaker, and exactly one takes a half-open probe.
create table ${schema}.route_health (
  route_id text primary key,
  state text not null default 'closed' check (state in ('closed', 'open', 'half_open')),
  -- Open: when a probe may go through.
  open_until timestamptz,
  -- The cooldown of the current (or last) opening; doubled by each failed probe up to the configured cap.
  cooldown_ms integer not null default 0 check (cooldown_ms >= 0),
  -- Half-open: the probe's lease and its holder (a random id per probe).
  probe_until timestamptz,
  probe_owner text,
  consecutive_failures integer not null default 0 check (consecutive_failures >= 0),
  -- When the breaker last closed after a probe: the window counts nothing before.
  since timestamptz,
  changed_at timestamptz not null default now()
);

-- Attempts, failures and the latency histogram per route and second (epoch seconds), summed over the
-- processes' flushes (each adds its batch by one upsert). Rows past the window are purged by the processes.
create table ${schema}.route_health_seconds (
  route_id text not null references ${schema}.route_health (route_id) on delete cascade,
  second bigint not null,
  attempts integer not null check (attempts >= 0),
  failures integer not null check (failures >= 0),
  latency integer[] not null,
  primary key (route_id, second)
);
`,
};
