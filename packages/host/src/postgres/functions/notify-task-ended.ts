import type { SqlFunction } from './sql-function.js';

/** Trigger on tasks (008): a task ended elsewhere (cancel, revoke, sweep) notifies workers to abort its upstream call. */
export const notifyTaskEnded: SqlFunction = {
  name: 'gengate_notify_task_ended',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_notify_task_ended() returns trigger
language plpgsql as $$
begin
  perform pg_notify('gengate_task_ended', new.id::text);
  return null;
end $$;`,
};
