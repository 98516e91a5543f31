import type { SqlFunction } from './sql-function.js';

/**
 * Per-user caps enforced by the database (005): for a row the cap counts (a revoked key, a usage charge or a
 * settled top-up pass at once), a BEFORE INSERT trigger takes a transaction-level advisory lock on (cap, user),
 * then counts; over the cap it raises SQLSTATE GGCAP (the stores' `limit_exceeded`). The caps are the
 * trigger's arguments (migration 005's triggers).
 */
export const enforceUserCap: SqlFunction = {
  name: 'gengate_enforce_user_cap',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_enforce_user_cap() returns trigger
language plpgsql as $$
declare
  cap_name text := tg_argv[0];
  cap integer := tg_argv[1]::integer;
  n integer;
begin
  -- A row the cap does not count passes before the lock: a task's usage charge (every success end inserts
  -- one) neither waits for nor holds the user's cap lock, which serialized the ends of one user.
  -- (Nested IFs: a row's fields are read only on the table that has them.)
  if cap_name = 'api_keys' then
    if new.revoked_at is not null then return new; end if;
  elsif cap_name = 'pending_topups' then
    if new.status <> 'pending' or new.payment_method = 'usage' then return new; end if;
  end if;
  perform pg_advisory_xact_lock(hashtext('gengate-cap:' || cap_name), hashtext(new.user_id::text));
  if cap_name = 'api_keys' then
    select count(*) into n from ${schema}.api_keys where user_id = new.user_id and revoked_at is null;
  elsif cap_name = 'balance_alerts' then
    select count(*) into n from ${schema}.balance_alerts where user_id = new.user_id;
  elsif cap_name = 'pending_topups' then
    select count(*) into n from ${schema}.transactions where user_id = new.user_id and status = 'pending' and payment_method <> 'usage';
  else
    raise exception 'unknown cap %', cap_name;
  end if;
  if n >= cap then
    raise exception using errcode = 'GGCAP', message = format('gengate cap %s of %s reached', cap_name, cap), detail = cap_name;
  end if;
  return new;
end $$;`,
};
