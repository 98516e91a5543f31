import type { SqlFunction } from './sql-function.js';

/**
 * The poll of a batch of tasks (PgTaskPoll: the polls of one event-loop turn): for each item, in order
 * (`i`, 1-based), the task's view columns built into one JSON value when the task exists and belongs to
 * the item's user (else null), and whether the item's API key is no longer active (revoked or gone; false
 * for an item without a key). One row per item in every case, so a revoked key is told from a missing task.
 *
 * Why a function: its statement is planned once per connection, by primary keys whatever the statistics.
 * As a prepared statement of its own, PostgreSQL planned it for its arrays at every run
 * (`plan_cache_mode = auto` costed each custom plan for its batch's length, below the generic plan's ten
 * items: 24,771 plans in 24,759 runs, 260 µs of planning beside 118 µs of execution). A generic plan made
 * while the tables were small and analyzed (a new deployment) read them by sequential scan, and kept doing
 * so as they grew, until autovacuum's next ANALYZE: `force_generic_plan` plans it once, and
 * `enable_seqscan = off` leaves it only the primary keys. The task and the key are looked up by primary key
 * alone (the owner and the revocation are compared outside the lookups, so no other index fits either).
 */
export const poll: SqlFunction = {
  name: 'gengate_poll',
  identityArgs: 'uuid[], uuid[], uuid[]',
  sql: (schema) => `
create or replace function ${schema}.gengate_poll(p_task_ids uuid[], p_user_ids uuid[], p_key_ids uuid[])
returns table (i bigint, task json, key_revoked boolean)
language plpgsql stable
rows 10
set plan_cache_mode = force_generic_plan
set enable_seqscan = off as $$
#variable_conflict use_column
begin
  return query
    select q.i, case when p.user_id = q.user_id then p.task end, q.key_id is not null and k.active is not true
      from unnest(p_task_ids, p_user_ids, p_key_ids) with ordinality as q(task_id, user_id, key_id, i)
      left join lateral (select k.revoked_at is null as active from ${schema}.api_keys k where k.id = q.key_id limit 1) k on true
      left join lateral (select t.user_id, json_build_object(
          'id', t.id, 'user_id', t.user_id, 'member_id', coalesce(t.member_id, t.user_id), 'model_id', t.model_id, 'status', t.status,
          'outputs', t.outputs, 'error_message', t.error_message, 'progress', t.progress, 'route_id', t.route_id,
          'route_attempts', t.route_attempts, 'created_at', t.created_at,
          'request_provider', t.request -> 'provider', 'request_models', t.request -> 'models') as task
        from ${schema}.tasks t where t.id = q.task_id limit 1) p on true;
end $$`,
};
