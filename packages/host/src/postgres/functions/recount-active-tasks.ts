import type { SqlFunction } from './sql-function.js';

/**
 * Maintenance (012, 020): recounts and corrects the unfinished-task counts of users whose account disagrees
 * with their tasks, each under its account lock with its pending rows folded first. Returns the users corrected.
 */
export const recountActiveTasks: SqlFunction = {
  name: 'gengate_recount_active_tasks',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_recount_active_tasks() returns setof uuid
language plpgsql as $$
declare
  u uuid;
  c record;
begin
  for u in
    select a.user_id from ${schema}.account_totals a
    left join (
      select user_id,
        count(*) filter (where modality = 'chat' and admitted) as rc, count(*) filter (where modality = 'image' and admitted) as ri,
        count(*) filter (where modality = 'video' and admitted) as rv, count(*) filter (where modality = 'chat' and not admitted) as qc,
        count(*) filter (where modality = 'image' and not admitted) as qi, count(*) filter (where modality = 'video' and not admitted) as qv
      from ${schema}.tasks where status in ('waiting', 'generating') group by user_id) n on n.user_id = a.user_id
    where (a.running_chat, a.running_image, a.running_video, a.queued_chat, a.queued_image, a.queued_video)
      is distinct from (coalesce(n.rc, 0), coalesce(n.ri, 0), coalesce(n.rv, 0), coalesce(n.qc, 0), coalesce(n.qi, 0), coalesce(n.qv, 0))
  loop
    perform 1 from ${schema}.accounts where user_id = u for update;
    perform ${schema}.gengate_fold_pending(u);
    select
      count(*) filter (where modality = 'chat' and admitted) as rc, count(*) filter (where modality = 'image' and admitted) as ri,
      count(*) filter (where modality = 'video' and admitted) as rv, count(*) filter (where modality = 'chat' and not admitted) as qc,
      count(*) filter (where modality = 'image' and not admitted) as qi, count(*) filter (where modality = 'video' and not admitted) as qv
    into c from ${schema}.tasks where user_id = u and status in ('waiting', 'generating');
    update ${schema}.accounts set running_chat = c.rc, running_image = c.ri, running_video = c.rv, queued_chat = c.qc, queued_image = c.qi, queued_video = c.qv
      where user_id = u and (running_chat, running_image, running_video, queued_chat, queued_image, queued_video) is distinct from (c.rc, c.ri, c.rv, c.qc, c.qi, c.qv);
    if found then return next u; end if;
  end loop;
end $$;`,
};
