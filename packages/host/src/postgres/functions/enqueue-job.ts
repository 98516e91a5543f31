import type { SqlFunction } from './sql-function.js';

/**
 * A pg-boss job row, the one boss.send() inserts (pg-boss 12.35 insertJobs, queue notify off), every queue
 * setting read from the queue's row (018). `p_boss`: pg-boss's schema; null raises GGNJQ (no job queue).
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
  execute format('select table_name from %I.queue where name = $1', p_boss) into tbl using p_queue;
  if tbl is null then
    raise exception using errcode = 'GGNJQ', message = format('gengate: no pg-boss queue %s', p_queue);
  end if;
  -- Column for column what pg-boss's insertJobs writes for send(queue, data, { id, group }).
  execute format($q$
    insert into %1$I.%2$I (id, name, data, priority, start_after, created_on, singleton_key, singleton_on, group_id, group_tier,
      expire_seconds, deletion_seconds, keep_until, retry_limit, retry_delay, retry_backoff, retry_delay_max, policy, dead_letter,
      heartbeat_seconds, blocked, blocking, pending_dependencies)
    select coalesce($1, gen_random_uuid()), q.name, $2, 0, j.now, j.now, null, null, $3, $4,
      q.expire_seconds, q.deletion_seconds, j.now + (q.retention_seconds * interval '1s'), q.retry_limit, q.retry_delay,
      coalesce(q.retry_backoff, false), q.retry_delay_max, q.policy, q.dead_letter, q.heartbeat_seconds, false, false, 0
    from %1$I.queue q, (select %1$I.job_now() + cast('0' as interval) as now) j
    where q.name = $5
    on conflict do nothing$q$, p_boss, tbl)
    using p_id, p_data, p_group_id, p_group_tier, p_queue;
end $$;`,
};
