import type { SqlFunction } from './sql-function.js';

/**
 * Trigger on api_keys (027): a key's budget period changed; every hold of the key since the new period's
 * start moves into it (the usage charges of the settled ones with it), so the new period counts what the
 * key spent since it started. Takes the organization's slots lock before writing key_spend, like every writer.
 */
export const keyBudgetPeriodChanged: SqlFunction = {
  name: 'gengate_key_budget_period_changed',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_key_budget_period_changed() returns trigger
language plpgsql as $$
declare
  v_start timestamptz := ${schema}.gengate_key_period_start(new.budget_period, now());
  v_moved bigint;
begin
  perform pg_advisory_xact_lock(hashtextextended('gengate-slots:' || new.user_id::text, 0));
  -- The usage charges of the settled holds that move, out of the rows they counted in …
  update ${schema}.key_spend s set charged_micro = s.charged_micro - m.charged
    from (select h.key_period_start, -sum(x.credits_micro) as charged
          from ${schema}.holds h join ${schema}.transactions x on x.task_id = h.task_id and x.payment_method = 'usage'
          where h.api_key_id = new.id and h.key_period_start is not null and h.key_period_start <> v_start and h.created_at >= v_start
            and h.state = 'settled'
          group by h.key_period_start) m
    where s.api_key_id = new.id and s.period_start = m.key_period_start;
  select coalesce(-sum(x.credits_micro), 0) into v_moved
    from ${schema}.holds h join ${schema}.transactions x on x.task_id = h.task_id and x.payment_method = 'usage'
    where h.api_key_id = new.id and h.key_period_start is not null and h.key_period_start <> v_start and h.created_at >= v_start and h.state = 'settled';
  -- … into the new period's row …
  insert into ${schema}.key_spend (api_key_id, period_start, charged_micro) values (new.id, v_start, v_moved)
    on conflict (api_key_id, period_start) do update set charged_micro = key_spend.charged_micro + excluded.charged_micro;
  -- … and every hold since the period's start restamped (019's hold trigger moves the open ones' amounts).
  update ${schema}.holds set key_period_start = v_start
    where api_key_id = new.id and key_period_start is not null and key_period_start <> v_start and created_at >= v_start;
  return null;
end $$;`,
};
