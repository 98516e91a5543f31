import { BOSS_SCHEMA } from '../boss-queues.js';
import type { SqlFunction } from './sql-function.js';

/** A job's values in the statement: SQL expressions (PL/pgSQL variables, $n parameters, or columns of `rows`). */
interface JobValues {
  readonly id: string;
  readonly data: string;
  readonly group: string;
  readonly tier: string;
  readonly queue: string;
  /** A FROM item giving one row per job (several jobs in one statement), which the values above read. */
  readonly rows?: string;
}

/**
 * pg-boss's job insert for send(queue, data, { id, group }), column for column what its insertJobs writes
 * (pg-boss 12.35, queue notify off), every queue setting read from the queue's row. Written once, for two
 * spellings: `boss` and `table` the statement's schema and job table (SQL text: identifiers, or format()
 * placeholders), `v` its values (PL/pgSQL variables, or $n parameters), one job or one per row of `v.rows`.
 */
function jobInsert(boss: string, table: string, v: JobValues): string {
  return `insert into ${boss}.${table} (id, name, data, priority, start_after, created_on, singleton_key, singleton_on, group_id, group_tier,
      expire_seconds, deletion_seconds, keep_until, retry_limit, retry_delay, retry_backoff, retry_delay_max, policy, dead_letter,
      heartbeat_seconds, blocked, blocking, pending_dependencies)
    select coalesce(${v.id}, gen_random_uuid()), q.name, ${v.data}, 0, j.now, j.now, null, null, ${v.group}, ${v.tier},
      q.expire_seconds, q.deletion_seconds, j.now + (q.retention_seconds * interval '1s'), q.retry_limit, q.retry_delay,
      coalesce(q.retry_backoff, false), q.retry_delay_max, q.policy, q.dead_letter, q.heartbeat_seconds, false, false, 0
    from ${boss}.queue q, (select ${boss}.job_now() + cast('0' as interval) as now) j${v.rows ? `, ${v.rows}` : ''}
    where q.name = ${v.queue}
    on conflict do nothing`;
}

/**
 * A function that inserts pg-boss job rows, the ones boss.send() inserts (018). `p_boss`: pg-boss's schema;
 * null raises GGNJQ (no job queue), so does a queue that does not exist.
 *
 * pg-boss's own schema (BOSS_SCHEMA, the one gengate's PgBoss is created with) takes a static statement,
 * whose plan PL/pgSQL keeps for the session: an EXECUTE is parsed, analysed and planned again on every call,
 * which was two thirds of a submission's PostgreSQL time (the queue's row read, then an INSERT ... SELECT
 * into a table with a dozen indexes and constraints). It inserts into pg-boss's partitioned `job` table,
 * which routes the row to the queue's own table (`queue.table_name`: a queue's partition, or job_common).
 * Any other schema (an embedder's BossSchema) takes the same statement through EXECUTE. `params` are the
 * function's parameters after p_boss and p_queue; `variables` and `placeholders` the job's values in the
 * static statement and in the EXECUTE'd one (whose `$n` follow `params`' order, the queue's name last).
 */
function enqueueFunction(f: { name: string; identityArgs: string; params: string; variables: JobValues; placeholders: JobValues; using: string }): SqlFunction {
  return {
    name: f.name,
    identityArgs: f.identityArgs,
    sql: (schema) => `
create or replace function ${schema}.${f.name}(
  p_boss text, p_queue text, ${f.params}
) returns void
language plpgsql as $$
declare
  tbl text;
begin
  if p_boss is null then
    raise exception using errcode = 'GGNJQ', message = 'gengate: this process was started without a job queue';
  end if;
  if p_boss = '${BOSS_SCHEMA}' then
    ${jobInsert(BOSS_SCHEMA, 'job', f.variables)};
    if found then return; end if;
    -- No row: the queue does not exist, or a job of that id does (nothing to do, as before).
    if not exists (select 1 from ${BOSS_SCHEMA}.queue where name = p_queue) then
      raise exception using errcode = 'GGNJQ', message = format('gengate: no pg-boss queue %s', p_queue);
    end if;
    return;
  end if;
  execute format('select table_name from %I.queue where name = $1', p_boss) into tbl using p_queue;
  if tbl is null then
    raise exception using errcode = 'GGNJQ', message = format('gengate: no pg-boss queue %s', p_queue);
  end if;
  execute format($q$${jobInsert('%1$I', '%2$I', f.placeholders)}$q$, p_boss, tbl)
    using ${f.using}, p_queue;
end $$;`,
  };
}

/** One job: send(queue, data, { id, group: { id, tier } }). */
export const enqueueJob: SqlFunction = enqueueFunction({
  name: 'gengate_enqueue_job',
  identityArgs: 'text, text, uuid, jsonb, text, text',
  params: 'p_id uuid, p_data jsonb, p_group_id text, p_group_tier text',
  variables: { id: 'p_id', data: 'p_data', group: 'p_group_id', tier: 'p_group_tier', queue: 'p_queue' },
  placeholders: { id: '$1', data: '$2', group: '$3', tier: '$4', queue: '$5' },
  using: 'p_id, p_data, p_group_id, p_group_tier',
});

/**
 * Several jobs of one queue in one statement (the jobs of a submission batch, gengate_submit_tasks): the
 * arrays are the jobs' values, element by element. One executor start and one pass over the job table's
 * indexes and constraints for the batch, instead of one call and one statement per job.
 */
export const enqueueJobs: SqlFunction = enqueueFunction({
  name: 'gengate_enqueue_jobs',
  identityArgs: 'text, text, uuid[], jsonb[], text[], text[]',
  params: 'p_ids uuid[], p_data jsonb[], p_group_ids text[], p_group_tiers text[]',
  variables: { id: 'r.id', data: 'r.data', group: 'r.group_id', tier: 'r.group_tier', queue: 'p_queue', rows: 'unnest(p_ids, p_data, p_group_ids, p_group_tiers) as r(id, data, group_id, group_tier)' },
  placeholders: { id: 'r.id', data: 'r.data', group: 'r.group_id', tier: 'r.group_tier', queue: '$5', rows: 'unnest($1, $2, $3, $4) as r(id, data, group_id, group_tier)' },
  using: 'p_ids, p_data, p_group_ids, p_group_tiers',
});
