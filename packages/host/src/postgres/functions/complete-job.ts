import type { SqlFunction } from './sql-function.js';

/**
 * The fetched attempt of a pg-boss job completed as pg-boss's own complete() does (018), fenced: a job no
 * longer active under that attempt is left alone. `p_boss`: pg-boss's schema (null: no job queue, nothing to do).
 */
export const completeJob: SqlFunction = {
  name: 'gengate_complete_job',
  identityArgs: 'text, text, uuid, integer',
  sql: (schema) => `
create or replace function ${schema}.gengate_complete_job(p_boss text, p_queue text, p_id uuid, p_attempt integer) returns void
language plpgsql as $$
declare
  tbl text;
begin
  if p_id is null or p_boss is null then return; end if;
  execute format('select table_name from %I.queue where name = $1', p_boss) into tbl using p_queue;
  if tbl is null then return; end if;
  -- pg-boss's completeJobs with its attempt fence: only the attempt the worker fetched, only while active.
  execute format($q$
    update %1$I.%2$I set completed_on = %1$I.job_now(), state = 'completed', output = null
    where name = $1 and id = $2 and state = 'active' and retry_count = $3$q$, p_boss, tbl)
    using p_queue, p_id, p_attempt;
end $$;`,
};
