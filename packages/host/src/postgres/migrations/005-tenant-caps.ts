import type { Migration } from './migration.js';

/**
 * Per-user caps enforced by the database, so that concurrent requests cannot pass a count-then-insert
 * together: a BEFORE INSERT trigger takes a transaction-level advisory lock on (cap, user), then counts.
 * A second insert for the same user waits for the first transaction to end and then sees its row (each
 * statement of a PL/pgSQL function takes a fresh snapshot under READ COMMITTED). Over the cap it raises
 * SQLSTATE GGCAP, which the stores turn into `limit_exceeded`.
 *
 * The numbers are MAX_KEYS_PER_USER (50), MAX_ALERTS_PER_USER (20) and MAX_PENDING_TOPUPS_PER_USER (5)
 * of @gengate/core; changing one takes a new migration that recreates its trigger.
 */
export const tenantCaps: Migration = {
  version: 5,
  name: 'per-user caps on active keys, balance alerts and pending top-ups, enforced by triggers',
  up: (schema) => `
-- gengate_enforce_user_cap(): functions/enforce-user-cap.ts
create trigger api_keys_cap before insert on ${schema}.api_keys
  for each row execute function ${schema}.gengate_enforce_user_cap('api_keys', '50');
create trigger balance_alerts_cap before insert on ${schema}.balance_alerts
  for each row execute function ${schema}.gengate_enforce_user_cap('balance_alerts', '20');
create trigger transactions_pending_cap before insert on ${schema}.transactions
  for each row execute function ${schema}.gengate_enforce_user_cap('pending_topups', '5');

create index transactions_pending on ${schema}.transactions (user_id, created_at) where status = 'pending';
`,
};
