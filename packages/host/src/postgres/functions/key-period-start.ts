import type { SqlFunction } from './sql-function.js';

/** A budget period's start in UTC (019): day 00:00, week Monday 00:00, month the 1st; `none`: the epoch. */
export const keyPeriodStart: SqlFunction = {
  name: 'gengate_key_period_start',
  identityArgs: 'text, timestamptz',
  sql: (schema) => `
create or replace function ${schema}.gengate_key_period_start(p_period text, p_at timestamptz) returns timestamptz
language sql immutable as $$
  select case p_period
    when 'day' then date_trunc('day', p_at at time zone 'UTC') at time zone 'UTC'
    when 'week' then date_trunc('week', p_at at time zone 'UTC') at time zone 'UTC'
    when 'month' then date_trunc('month', p_at at time zone 'UTC') at time zone 'UTC'
    else timestamptz '1970-01-01 00:00:00+00'
  end
$$;`,
};
