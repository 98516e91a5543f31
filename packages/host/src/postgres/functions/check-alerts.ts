import type { SqlFunction } from './sql-function.js';

/**
 * Balance alerts (018): an armed alert crossed downwards disarms and gets ONE mail job; a disarmed alert whose
 * threshold the balance is back at re-arms. Reads the whole account: the row and its pending rows (020).
 */
export const checkAlerts: SqlFunction = {
  name: 'gengate_check_alerts',
  identityArgs: 'uuid, text',
  sql: (schema) => `
create or replace function ${schema}.gengate_check_alerts(p_user uuid, p_boss text) returns integer
language plpgsql as $$
declare
  balance bigint;
  a record;
  mails integer := 0;
begin
  select balance_micro into balance from ${schema}.account_totals where user_id = p_user;
  if balance is null then return 0; end if;
  for a in select id, armed, threshold_micro from ${schema}.balance_alerts where user_id = p_user order by created_at, id loop
    if a.armed and balance < a.threshold_micro then
      update ${schema}.balance_alerts set armed = false where id = a.id;
      perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-alert-mail', gen_random_uuid(),
        jsonb_build_object('alertId', a.id, 'balanceMicro', balance), null, null);
      mails := mails + 1;
    elsif not a.armed and balance >= a.threshold_micro then
      update ${schema}.balance_alerts set armed = true where id = a.id;
    end if;
  end loop;
  return mails;
end $$;`,
};
