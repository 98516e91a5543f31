import type { SqlFunction } from './sql-function.js';

/**
 * The user's queued tasks admitted into the free running slots, oldest first, each with its generation job
 * (018); the account's pending rows folded first (020). The caller holds the user's account lock.
 */
export const admitQueued: SqlFunction = {
  name: 'gengate_admit_queued',
  identityArgs: 'uuid, text, integer, text',
  sql: (schema) => `
create or replace function ${schema}.gengate_admit_queued(p_user uuid, p_modality text, p_max_running integer, p_boss text) returns integer
language plpgsql as $$
declare
  running integer;
  n integer := 0;
  v_task uuid;
begin
  perform ${schema}.gengate_fold_pending(p_user);
  select case p_modality when 'chat' then running_chat when 'image' then running_image else running_video end
    into running from ${schema}.accounts where user_id = p_user;
  if coalesce(p_max_running - running, 0) <= 0 then return 0; end if;
  for v_task in
    with admitted as (
      update ${schema}.tasks set admitted = true where tasks.id in (
        select t.id from ${schema}.tasks t where t.user_id = p_user and t.modality = p_modality and t.status = 'waiting' and not t.admitted
        order by t.created_at, t.id limit p_max_running - running for update skip locked)
      returning tasks.id, tasks.created_at)
    select a.id from admitted a order by a.created_at, a.id
  loop
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-generate', gen_random_uuid(), jsonb_build_object('taskId', v_task), null, null);
    n := n + 1;
  end loop;
  return n;
end $$;`,
};
