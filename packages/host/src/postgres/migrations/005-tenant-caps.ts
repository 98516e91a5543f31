import type { Migration } from './migration.js';

/** gengate_enforce_user_cap(), created in the schema with its tables named in it (run again by adoptLegacyTables). */
export const enforceUserCapSql = (schema: string): string => `
create or replace function ${schema}.gengate_enforce_user_cap() returns trigger language plpgsql as $$
declare
  cap_name text := tg_argv[0];
  cap integer := tg_argv[1]::integer;
  n integer;
begin
  perform pg_advisory_xact_lock(hashtext('gengate-cap:' || cap_name), hashtext(new.user_id::text));
  if cap_name = 'api_keys' then
    if new.revoked_at is not null then return new; end if;
    select count(*) into n from ${schema}.api_keys where user_id = new.user_id and revoked_at is null;
  elsif cap_name = 'balance_alerts' then
    select count(*) into n from ${schema}.balance_alerts where user_id = new.user_id;
  elsif cap_name = 'pending_topups' then
    if new.status <> 'pending' or new.payment_method = 'usage' then return new; end if;
    select count(*) into n from ${schema}.transactions where user_id = new.user_id and status = 'pending' and payment_method <> 'usage';
  else
    raise exception 'unknown cap %', cap_name;
  end if;
  if n >= cap then
    raise exception using errcode = 'GGCAP', message = format('gengate cap %s of %s reached', cap_name, cap), detail = cap_name;
  end if;
  return new;
end $$;`;

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
${enforceUserCapSql(schema)}

create trigger api_keys_cap before insert on ${schema}.api_keys
  for each row execute function ${schema}.gengate_enforce_user_cap('api_keys', '50');
create trigger balance_alerts_cap before insert on ${schema}.balance_alerts
  for each row execute function ${schema}.gengate_enforce_user_cap('balance_alerts', '20');
create trigger transactions_pending_cap before insert on ${schema}.transactions
  for each row execute function ${schema}.gengate_enforce_user_cap('pending_topups', '5');

create index transactions_pending on ${schema}.transactions (user_id, created_at) where status = 'pending';
`,
};
