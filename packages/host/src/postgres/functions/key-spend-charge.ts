import type { SqlFunction } from './sql-function.js';

/** Trigger on transactions (019): a usage charge added to key_spend.charged_micro of its hold's key and period. */
export const keySpendCharge: SqlFunction = {
  name: 'gengate_key_spend_charge',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_key_spend_charge() returns trigger
language plpgsql as $$
begin
  update ${schema}.key_spend s set charged_micro = s.charged_micro - new.credits_micro
    from ${schema}.holds h
    where h.task_id = new.task_id and h.key_period_start is not null and s.api_key_id = h.api_key_id and s.period_start = h.key_period_start;
  return null;
end $$;`,
};
