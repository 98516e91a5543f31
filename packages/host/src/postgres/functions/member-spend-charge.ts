import type { SqlFunction } from './sql-function.js';

/** Trigger on transactions (026): a usage charge added to member_spend.charged_micro of its hold's member and period. */
export const memberSpendCharge: SqlFunction = {
  name: 'gengate_member_spend_charge',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_member_spend_charge() returns trigger
language plpgsql as $$
begin
  update ${schema}.member_spend s set charged_micro = s.charged_micro - new.credits_micro
    from ${schema}.holds h
    where h.task_id = new.task_id and h.member_period_start is not null
      and s.organization_id = h.user_id and s.member_id = h.member_id and s.period_start = h.member_period_start;
  return null;
end $$;`,
};
