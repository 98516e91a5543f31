import type { SqlFunction } from './sql-function.js';

/** Trigger on holds (026): member_spend.held_micro of the hold's member and period follows the hold, like key_spend's. */
export const memberSpendHold: SqlFunction = {
  name: 'gengate_member_spend_hold',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_member_spend_hold() returns trigger
language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.member_period_start is not null and old.state = 'held' then
    update ${schema}.member_spend set held_micro = held_micro - old.amount_micro
      where organization_id = old.user_id and member_id = old.member_id and period_start = old.member_period_start;
  end if;
  if new.member_period_start is not null and new.state = 'held' then
    insert into ${schema}.member_spend (organization_id, member_id, period_start, held_micro)
      values (new.user_id, new.member_id, new.member_period_start, new.amount_micro)
      on conflict (organization_id, member_id, period_start) do update set held_micro = member_spend.held_micro + excluded.held_micro;
  end if;
  return null;
end $$;`,
};
