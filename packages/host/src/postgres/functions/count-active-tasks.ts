import type { SqlFunction } from './sql-function.js';

/**
 * The setting under which the trigger leaves tasks' updates to the statement that makes them, which counts
 * them itself (gengate_finish_successes: its ends' counts go with their charges, one row per user).
 */
export const END_COUNTS = 'gengate.end_counts';

/** The modality's queued count of an account row or of account_totals (`r`), for `modality` (an SQL expression). */
export const queuedOf = (r: string, modality: string): string =>
  `(case ${modality} when 'chat' then ${r}.queued_chat when 'image' then ${r}.queued_image else ${r}.queued_video end)`;

/**
 * Trigger on tasks (012): each account row carries its user's unfinished tasks per modality, running
 * (admitted) and queued, so admission reads two integers. A decrement goes to account_pending instead when
 * the end asked for it (`gengate.defer_account`, 020: an end that does not lock the account row). A task
 * inserted by a submission is counted by the submission itself, in the one write of the account row it makes
 * for all its holds and counts (`gengate.submission_counts`, account-tally.ts): the trigger leaves it; so
 * are a batch of successes' tasks by the batch (END_COUNTS).
 */
export const countActiveTasks: SqlFunction = {
  name: 'gengate_count_active_tasks',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_count_active_tasks() returns trigger
language plpgsql as $$
declare
  run_delta integer := 0;
  queue_delta integer := 0;
  t ${schema}.tasks;
begin
  if tg_op = 'INSERT' and current_setting('gengate.submission_counts', true) = 'on' then return null; end if;
  if tg_op = 'UPDATE' and current_setting('${END_COUNTS}', true) = 'on' then return null; end if;
  if tg_op <> 'INSERT' and old.status in ('waiting', 'generating') then
    if old.admitted then run_delta := run_delta - 1; else queue_delta := queue_delta - 1; end if;
  end if;
  if tg_op <> 'DELETE' and new.status in ('waiting', 'generating') then
    if new.admitted then run_delta := run_delta + 1; else queue_delta := queue_delta + 1; end if;
  end if;
  if run_delta = 0 and queue_delta = 0 then return null; end if;
  if tg_op = 'DELETE' then t := old; else t := new; end if;
  if run_delta <= 0 and queue_delta <= 0 and current_setting('gengate.defer_account', true) = 'on' then
    insert into ${schema}.account_pending (user_id, running_chat, running_image, running_video, queued_chat, queued_image, queued_video)
    values (t.user_id,
      case when t.modality = 'chat' then run_delta else 0 end, case when t.modality = 'image' then run_delta else 0 end,
      case when t.modality = 'video' then run_delta else 0 end, case when t.modality = 'chat' then queue_delta else 0 end,
      case when t.modality = 'image' then queue_delta else 0 end, case when t.modality = 'video' then queue_delta else 0 end);
    return null;
  end if;
  for attempt in 1..2 loop
    update ${schema}.accounts set
      running_chat = running_chat + case when t.modality = 'chat' then run_delta else 0 end,
      running_image = running_image + case when t.modality = 'image' then run_delta else 0 end,
      running_video = running_video + case when t.modality = 'video' then run_delta else 0 end,
      queued_chat = queued_chat + case when t.modality = 'chat' then queue_delta else 0 end,
      queued_image = queued_image + case when t.modality = 'image' then queue_delta else 0 end,
      queued_video = queued_video + case when t.modality = 'video' then queue_delta else 0 end
    where user_id = t.user_id;
    exit when found;
    insert into ${schema}.accounts (user_id) values (t.user_id) on conflict do nothing;
  end loop;
  return null;
end $$;`,
};
