import type { Migration } from './migration.js';

export const rateLimits: Migration = {
  version: 2,
  name: 'rate limit counters (rate-limiter-flexible schema), creation-order timestamps',
  up: (schema) => `
create table ${schema}.gengate_rate_limits (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);
create index tasks_waiting_by_key on ${schema}.tasks (api_key_id) where status = 'waiting';
-- Rows created in one transaction keep their creation order (now() is the transaction's start).
alter table ${schema}.api_keys alter column created_at set default clock_timestamp();
alter table ${schema}.tasks alter column created_at set default clock_timestamp();
`,
};
