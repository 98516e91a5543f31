import type { SqlFunction } from './sql-function.js';

/**
 * Folds the user's committed account_pending rows into the account row (020); the caller holds the account
 * lock. The deltas are additive, so folding commutes with every other change of the row. Returns 1 when it
 * folded anything.
 */
export const foldPending: SqlFunction = {
  name: 'gengate_fold_pending',
  identityArgs: 'uuid',
  sql: (schema) => `
create or replace function ${schema}.gengate_fold_pending(p_user uuid) returns integer
language plpgsql as $$
declare
  n integer;
begin
  with d as (delete from ${schema}.account_pending where user_id = p_user returning *),
  s as (select count(*) as n,
    coalesce(sum(balance_micro), 0) as balance_micro,
    coalesce(sum(held_micro), 0) as held_micro,
    coalesce(sum(running_chat), 0) as running_chat,
    coalesce(sum(running_image), 0) as running_image,
    coalesce(sum(running_video), 0) as running_video,
    coalesce(sum(queued_chat), 0) as queued_chat,
    coalesce(sum(queued_image), 0) as queued_image,
    coalesce(sum(queued_video), 0) as queued_video
    from d)
  update ${schema}.accounts a set
    balance_micro = a.balance_micro + s.balance_micro,
    held_micro = a.held_micro + s.held_micro,
    running_chat = a.running_chat + s.running_chat,
    running_image = a.running_image + s.running_image,
    running_video = a.running_video + s.running_video,
    queued_chat = a.queued_chat + s.queued_chat,
    queued_image = a.queued_image + s.queued_image,
    queued_video = a.queued_video + s.queued_video
  from s where a.user_id = p_user and s.n > 0;
  get diagnostics n = row_count;
  return n;
end $$;`,
};
