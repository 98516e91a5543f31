import type { SqlFunction } from './sql-function.js';
import { slotsLock } from './slots-lock.js';

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
  ${slotsLock('new.user_id', 'exclusive')}
  -- The key's pending spend (029: the ends committed before this lock) into its rows first, so the charges
  -- moved out of a row below were counted in it. Its rows are locked before its pending rows, as a
  -- submission's hold locks its row before folding that row's pending rows.
  perform 1 from ${schema}.key_spend where api_key_id = new.id order by period_start for update;
  with d as (delete from ${schema}.key_spend_pending q where q.api_key_id = new.id returning q.period_start, q.held_micro, q.charged_micro),
  f as (select d.period_start, sum(d.held_micro) as held_micro, sum(d.charged_micro) as charged_micro from d group by d.period_start)
  update ${schema}.key_spend s set held_micro = s.held_micro + f.held_micro, charged_micro = s.charged_micro + f.charged_micro
    from f where s.api_key_id = new.id and s.period_start = f.period_start;
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
