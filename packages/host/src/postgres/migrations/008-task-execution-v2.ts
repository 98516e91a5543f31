import type { Migration } from './migration.js';

export const taskExecutionV2: Migration = {
  version: 8,
  name: 'task costs, usage and upstream metadata; per-user admission; status-check chains; task-ended notifications',
  up: (schema) => `
alter table ${schema}.tasks
  add column quoted_cost_micro bigint,
  add column cost_micro bigint,
  add column reported_cost_micro bigint,
  add column usage jsonb,
  add column upstream_metadata jsonb,
  add column progress real check (progress >= 0 and progress <= 1),
  add column admitted boolean not null default true,
  add column poll_seq integer not null default 0;
update ${schema}.tasks set quoted_cost_micro = quoted_micro;
alter table ${schema}.tasks alter column quoted_cost_micro set not null;

-- A user's unfinished tasks per modality: admission counts them at every submission and task end.
create index tasks_user_active on ${schema}.tasks (user_id, modality, created_at) where status in ('waiting', 'generating');

-- Workers abort an in-flight upstream call when its task is ended elsewhere (cancel, revoke, sweep).
-- gengate_notify_task_ended(): functions/notify-task-ended.ts
create trigger tasks_notify_fail after update of status on ${schema}.tasks
  for each row when (new.status = 'fail' and old.status <> 'fail') execute function ${schema}.gengate_notify_task_ended();
`,
};
