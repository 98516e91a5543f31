import type { Migration } from './migration.js';

/**
 * Submission in one statement, and the counts admission reads kept on the user's account row.
 *
 * Counts: each account row carries its user's unfinished tasks per modality, running (admitted) and
 * queued, kept by a trigger on tasks, so admission reads two integers instead of counting a backlog
 * under the account's lock. gengate_recount_active_tasks() repairs any drift user by user (maintenance).
 *
 * The functions named here are defined in functions/ (their current forms; this migration's first bodies
 * were removed from it when functions/ became their one home). The counts' first fill, which called
 * gengate_recount_active_tasks(), is the same count written out (the function's current form reads tables
 * of later migrations).
 *
 * gengate_submit_task(): PgTaskIntake sends it in the same network round trip as BEGIN, the generation
 * job's insert and COMMIT. Refusals raise an exception with a gengate SQLSTATE, so the transaction (the
 * job insert included) rolls back:
 *   GG409 replay (detail: the earlier request_hash and response), GG410 idempotency race,
 *   GG402 insufficient credits, GG401 key revoked, GG429 queue full (detail: the counts).
 * Each statement in a PL/pgSQL function sees what committed before it started, so the key check
 * after the account's row lock sees a revocation that committed while the submission waited for it
 * (a revoke takes the same lock; PgKeyStore.revoke).
 *
 * gengate_finish_success(): PgTaskCompletion's common case in one statement (pipelined with BEGIN, the
 * callback job's insert and COMMIT): the task, the hold settled, the usage transaction and the balance.
 * When the user has a queued task (it would take the freed slot and need a job) or a balance alert would
 * change state, it raises GGSLW and the general path (over the unit of work) does the whole commit;
 * GGEND: the task had already ended.
 *
 * Lock order: whoever changes a user's tasks between unfinished and ended takes the user's account
 * row first (the counts trigger updates it), as submissions and revocations do.
 */
export const submitTaskFunction: Migration = {
  version: 12,
  name: 'unfinished-task counts on the account row; gengate_submit_task(): a submission in one statement',
  up: (schema) => `
alter table ${schema}.accounts
  add column running_chat integer not null default 0,
  add column running_image integer not null default 0,
  add column running_video integer not null default 0,
  add column queued_chat integer not null default 0,
  add column queued_image integer not null default 0,
  add column queued_video integer not null default 0;

-- gengate_count_active_tasks(): functions/count-active-tasks.ts
create trigger tasks_count_active after insert or delete or update of status, admitted on ${schema}.tasks
  for each row execute function ${schema}.gengate_count_active_tasks();

-- The counts of the tasks unfinished at upgrade time, on their users' account rows.
update ${schema}.accounts a set running_chat = n.rc, running_image = n.ri, running_video = n.rv, queued_chat = n.qc, queued_image = n.qi, queued_video = n.qv
from (
  select user_id,
    count(*) filter (where modality = 'chat' and admitted) as rc, count(*) filter (where modality = 'image' and admitted) as ri,
    count(*) filter (where modality = 'video' and admitted) as rv, count(*) filter (where modality = 'chat' and not admitted) as qc,
    count(*) filter (where modality = 'image' and not admitted) as qi, count(*) filter (where modality = 'video' and not admitted) as qv
  from ${schema}.tasks where status in ('waiting', 'generating') group by user_id) n
where n.user_id = a.user_id;
`,
};
