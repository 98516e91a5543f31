/*
 * Settlement off the account row (migration 020, issue 23). Until 019 a task's end locked its user's
 * account row (to move balance, held and the running counters), and every submission of the same user
 * holds that lock until its commit: a worker's slot waited on the user's own submissions.
 *
 * Now a task's end does not touch the account row in the common case. What it changes on it is appended
 * as a row of `account_pending` (insert only: no lock on anything a submission holds; no foreign key, whose
 * check would share-lock the account row). The account row plus the user's pending rows is the account
 * (`account_totals`, what every reader reads); whoever holds the account lock folds the pending rows into
 * it (`gengate_fold_pending`): every submission does, first. The deltas are additive, so folding is
 * commutative with every other change of the row, and exact whenever it happens.
 *
 * The invariants:
 *  - never a negative balance: a pending settlement is (-charge, -hold) with charge <= hold, so it can
 *    only raise the available balance; a submission folds what has committed before it checks, and one
 *    that does not see a settlement still in flight sees less available, never more;
 *  - exact running limits: a pending end only lowers the running count. A submission that would QUEUE its
 *    task (the user at the limit) waits for the ends in flight (each holds a shared advisory lock on the
 *    user, the queueing submission takes it exclusive) and folds again, so it never queues behind a slot
 *    that is being freed; an end that finds a queued task of its user once its lock is granted has the
 *    host admit it right after its commit (gengate_admit_after_end), and the sweep stays the backstop;
 *  - balance alerts are exact: a user with alerts keeps 018's path (account row locked, folded, checked);
 *  - exactly-once charging and the ledger invariant: unchanged (the hold row is still taken once; the
 *    ledger invariant reads account_totals).
 * The functions are in functions/ (their current forms; this migration's bodies, kept here and in
 * 020-submit-and-finish.ts until then, were removed when functions/ became their one home).
 * Functions replaced here (018's bodies otherwise): gengate_count_active_tasks (the trigger: a decrement
 * is appended to account_pending when the end asked for it), gengate_recount_active_tasks (folds first),
 * gengate_admit_queued (folds first), gengate_check_alerts (reads account_totals), gengate_submit_task
 * (folds after the lock; the queueing re-check), gengate_finish_success and gengate_finish_fail (the
 * unlocked path); new: gengate_fold_pending, gengate_admit_after_end, the view account_totals.
 */

export const DELTA_COLUMNS = ['balance_micro', 'held_micro', 'running_chat', 'running_image', 'running_video', 'queued_chat', 'queued_image', 'queued_video'] as const;

const pendingTableSql = (schema: string) => `
create table ${schema}.account_pending (
  id bigint generated always as identity primary key,
  user_id uuid not null,
${DELTA_COLUMNS.map((c) => `  ${c} bigint not null default 0`).join(',\n')}
);
create index account_pending_user on ${schema}.account_pending (user_id);

create view ${schema}.account_totals as
  select a.user_id, ${DELTA_COLUMNS.map((c) => `(a.${c} + coalesce(p.${c}, 0))::${c.endsWith('_micro') ? 'bigint' : 'integer'} as ${c}`).join(', ')}
  from ${schema}.accounts a
  left join lateral (select ${DELTA_COLUMNS.map((c) => `sum(${c}) as ${c}`).join(', ')}
    from ${schema}.account_pending q where q.user_id = a.user_id) p on true;`;

export { pendingTableSql };
