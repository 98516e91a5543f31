import { BOSS_SCHEMA } from '../boss-queues.js';
import type { SqlFunction } from './sql-function.js';

/**
 * pg-boss's job insert for send(queue, data, { id, group }), column for column what its insertJobs writes
 * (pg-boss 12.35, queue notify off), every queue setting read from the queue's row. Written once, for two
 * spellings: `boss` and `table` the statement's schema and job table (SQL text: identifiers, or format()
 * placeholders), `v` its values (PL/pgSQL variables, or $n parameters).
 */
function jobInsert(boss: string, table: string, v: { id: string; data: string; group: string; tier: string; queue: string }): string {
  return `insert into ${boss}.${table} (id, name, data, priority, start_after, created_on, singleton_key, singleton_on, group_id, group_tier,
      expire_seconds, deletion_seconds, keep_until, retry_limit, retry_delay, retry_backoff, retry_delay_max, policy, dead_letter,
      heartbeat_seconds, blocked, blocking, pending_dependencies)
    select coalesce(${v.id}, gen_random_uuid()), q.name, ${v.data}, 0, j.now, j.now, null, null, ${v.group}, ${v.tier},
      q.expire_seconds, q.deletion_seconds, j.now + (q.retention_seconds * interval '1s'), q.retry_limit, q.retry_delay,
      coalesce(q.retry_backoff, false), q.retry_delay_max, q.policy, q.dead_letter, q.heartbeat_seconds, false, false, 0
    from ${boss}.queue q, (select ${boss}.job_now() + cast('0' as interval) as now) j
    where q.name = ${v.queue}
    on conflict do nothing`;
}

/**
 * A pg-boss job row, the one boss.send() inserts (018). `p_boss`: pg-boss's schema; null raises GGNJQ (no
 * job queue), so does a queue that does not exist.
 *
 * pg-boss's own schema (BOSS_SCHEMA, the one gengate's PgBoss is created with) takes a static statement,
 * whose plan PL/pgSQL keeps for the session: an EXECUTE is parsed, analysed and planned again on every call,
 * which was two thirds of a submission's PostgreSQL time (the queue's row read, then an INSERT ... SELECT
 * into a table with a dozen indexes and constraints). It inserts into pg-boss's partitioned `job` table,
 * which routes the row to the queue's own table (`queue.table_name`: a queue's partition, or job_common).
 * Any other schema (an embedder's BossSchema) takes the same statement through EXECUTE.
 */
export const enqueueJob: SqlFunction = {
  name: 'gengate_enqueue_job',
  identityArgs: 'text, text, uuid, jsonb, text, text',
  sql: (schema) => `
create or replace function ${schema}.gengate_enqueue_job(
  p_boss text, p_queue text, p_id uuid, p_data jsonb, p_group_id text, p_group_tier text
) returns void
language plpgsql as $$
declare
  tbl text;
begin
  if p_boss is null then
    raise exception using errcode = 'GGNJQ', message = 'gengate: this process was started without a job queue';
  end if;
  if p_boss = '${BOSS_SCHEMA}' then
    ${jobInsert(BOSS_SCHEMA, 'job', { id: 'p_id', data: 'p_data', group: 'p_group_id', tier: 'p_group_tier', queue: 'p_queue' })};
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
  execute format($q$${jobInsert('%1$I', '%2$I', { id: '$1', data: '$2', group: '$3', tier: '$4', queue: '$5' })}$q$, p_boss, tbl)
    using p_id, p_data, p_group_id, p_group_tier, p_queue;
end $$;`,
};
