import type { SqlFunction } from './sql-function.js';

/**
 * After an unlocked end that found a queued task of its user (020): the account locked, folded, the queue
 * admitted. PgTaskCompletion calls it right after the end's commit when the end reported `admitAfter`.
 */
export const admitAfterEnd: SqlFunction = {
  name: 'gengate_admit_after_end',
  identityArgs: 'uuid, text, integer, text',
  sql: (schema) => `
create or replace function ${schema}.gengate_admit_after_end(p_user uuid, p_modality text, p_max_running integer, p_boss text) returns integer
language plpgsql as $$
begin
  perform 1 from ${schema}.accounts where user_id = p_user for update;
  return ${schema}.gengate_admit_queued(p_user, p_modality, p_max_running, p_boss);
end $$;`,
};
