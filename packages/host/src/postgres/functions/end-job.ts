import { BOSS_SCHEMA } from '../boss-queues.js';
import type { SqlFunction } from './sql-function.js';

/** How a job's fetched attempt ends: completed as pg-boss's own complete() does, or removed. */
type JobEnd = 'complete' | 'remove';

/** The attempt fence of both: only the attempt the worker fetched, only while active. */
const fence = (v: { queue: string; id: string; attempt: string }) => `where name = ${v.queue} and id = ${v.id} and state = 'active' and retry_count = ${v.attempt}`;

/**
 * One job's fetched attempt in `boss`.`table`, ended by its primary key with its attempt fence: pg-boss's
 * completeJobs (`complete`), or the row deleted (`remove`: a delete writes no new row version and no index
 * entry, and leaves nothing for the retention purge).
 */
export function jobEnd(end: JobEnd, boss: string, table: string, v: { queue: string; id: string; attempt: string }): string {
  return end === 'complete'
    ? `update ${boss}.${table} set completed_on = ${boss}.job_now(), state = 'completed', output = null
    ${fence(v)}`
    : `delete from ${boss}.${table}
    ${fence(v)}`;
}

/**
 * The SQL function that ends a fetched attempt of a pg-boss job (`end`), fenced: a job no longer active
 * under that attempt is left alone. `p_boss`: pg-boss's schema (null: no job queue, nothing to do).
 * pg-boss's own schema (BOSS_SCHEMA) takes a static statement on its partitioned `job` table, its plan kept
 * for the session (an EXECUTE is planned on every call; see gengate_enqueue_job); any other through EXECUTE.
 */
function jobEndFunction(name: string, end: JobEnd): SqlFunction {
  return {
    name,
    identityArgs: 'text, text, uuid, integer',
    sql: (schema) => `
create or replace function ${schema}.${name}(p_boss text, p_queue text, p_id uuid, p_attempt integer) returns void
language plpgsql as $$
declare
  tbl text;
begin
  if p_id is null or p_boss is null then return; end if;
  if p_boss = '${BOSS_SCHEMA}' then
    ${jobEnd(end, BOSS_SCHEMA, 'job', { queue: 'p_queue', id: 'p_id', attempt: 'p_attempt' })};
    return;
  end if;
  execute format('select table_name from %I.queue where name = $1', p_boss) into tbl using p_queue;
  if tbl is null then return; end if;
  execute format($q$${jobEnd(end, '%1$I', '%2$I', { queue: '$1', id: '$2', attempt: '$3' })}$q$, p_boss, tbl)
    using p_queue, p_id, p_attempt;
end $$;`,
  };
}

/** The fetched attempt of a job completed as pg-boss's own complete() does (018): a failure's end, a delivered callback. */
export const completeJob = jobEndFunction('gengate_complete_job', 'complete');

/**
 * The fetched attempt of a job removed: a success's end (gengate_finish_successes). The task row and the
 * ledger are the record of a success; its job row, kept completed, was only ever deleted by the retention
 * purge. Removing it costs a fifth of completing it (3,000 jobs by primary key: 8–10 against 33–44 µs each).
 */
export const removeJob = jobEndFunction('gengate_remove_job', 'remove');
