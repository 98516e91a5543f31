import type { Migration } from './migration.js';

export const rateLimits: Migration = {
  version: 2,
  name: 'rate limit counters (rate-limiter-flexible schema)',
  up: `
create table gengate_rate_limits (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);
create index tasks_waiting_by_key on tasks (api_key_id) where status = 'waiting';
`,
};
