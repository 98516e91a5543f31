import { BOSS_SCHEMA } from '../boss-queues.js';
import type { SqlFunction } from './sql-function.js';

/**
 * pg-boss's completeJobs with its attempt fence (only the attempt the worker fetched, only while active), in
 * `boss`.`table`: one job, or one per row of `v.rows` (a FROM item the values read).
 */
export function jobComplete(boss: string, table: string, v: { queue: string; id: string; attempt: string; rows?: string }): string {
  return `update ${boss}.${table} set completed_on = ${boss}.job_now(), state = 'completed', output = null${v.rows ? `
    from ${v.rows}` : ''}
    where name = ${v.queue} and id = ${v.id} and state = 'active' and retry_count = ${v.attempt}`;
}

/**
 * The fetched attempt of a pg-boss job completed as pg-boss's own complete() does (018), fenced: a job no
 * longer active under that attempt is left alone. `p_boss`: pg-boss's schema (null: no job queue, nothing to do).
 * pg-boss's own schema (BOSS_SCHEMA) takes a static statement on its partitioned `job` table, its plan kept
 * for the session (an EXECUTE is planned on every call; see gengate_enqueue_job); any other through EXECUTE.
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
  if p_boss = '${BOSS_SCHEMA}' then
    ${jobComplete(BOSS_SCHEMA, 'job', { queue: 'p_queue', id: 'p_id', attempt: 'p_attempt' })};
    return;
  end if;
  execute format('select table_name from %I.queue where name = $1', p_boss) into tbl using p_queue;
  if tbl is null then return; end if;
  execute format($q$${jobComplete('%1$I', '%2$I', { queue: '$1', id: '$2', attempt: '$3' })}$q$, p_boss, tbl)
    using p_queue, p_id, p_attempt;
end $$;`,
};
