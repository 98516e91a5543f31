import type { SqlFunction } from './sql-function.js';

/**
 * Trigger on holds (019): key_spend.held_micro of the hold's key and period follows the hold (added while it is
 * 'held', taken out when it leaves 'held' or moves period), whatever path settles or releases it.
 */
export const keySpendHold: SqlFunction = {
  name: 'gengate_key_spend_hold',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_key_spend_hold() returns trigger
language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.key_period_start is not null and old.state = 'held' then
    update ${schema}.key_spend set held_micro = held_micro - old.amount_micro
      where api_key_id = old.api_key_id and period_start = old.key_period_start;
  end if;
  if new.key_period_start is not null and new.state = 'held' then
    insert into ${schema}.key_spend (api_key_id, period_start, held_micro) values (new.api_key_id, new.key_period_start, new.amount_micro)
      on conflict (api_key_id, period_start) do update set held_micro = key_spend.held_micro + excluded.held_micro;
  end if;
  return null;
end $$;`,
};
