import type { Migration } from './migration.js';

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
 * Functions replaced here (018's bodies otherwise): gengate_count_active_tasks (the trigger: a decrement
 * is appended to account_pending when the end asked for it), gengate_recount_active_tasks (folds first),
 * gengate_admit_queued (folds first), gengate_check_alerts (reads account_totals), gengate_submit_task
 * (folds after the lock; the queueing re-check), gengate_finish_success and gengate_finish_fail (the
 * unlocked path); new: gengate_fold_pending, gengate_admit_after_end, the view account_totals.
 */

const DELTA_COLUMNS = ['balance_micro', 'held_micro', 'running_chat', 'running_image', 'running_video', 'queued_chat', 'queued_image', 'queued_video'] as const;

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

/** Folds the user's committed pending rows into the account row; the caller holds the account lock. */
const foldPendingSql = (schema: string) => `
create or replace function ${schema}.gengate_fold_pending(p_user uuid) returns integer language plpgsql as $$
declare
  n integer;
begin
  with d as (delete from ${schema}.account_pending where user_id = p_user returning *),
  s as (select count(*) as n, ${DELTA_COLUMNS.map((c) => `coalesce(sum(${c}), 0) as ${c}`).join(', ')} from d)
  update ${schema}.accounts a set ${DELTA_COLUMNS.map((c) => `${c} = a.${c} + s.${c}`).join(', ')}
  from s where a.user_id = p_user and s.n > 0;
  get diagnostics n = row_count;
  return n;
end $$;`;

/** The counts trigger of 012: unchanged, except that a decrement goes to account_pending when the end asked for it. */
const countActiveTasksSql = (schema: string) => `
create or replace function ${schema}.gengate_count_active_tasks() returns trigger language plpgsql as $$
declare
  run_delta integer := 0;
  queue_delta integer := 0;
  t ${schema}.tasks;
begin
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
end $$;`;

/** 012's recount, folding each drifted user's pending rows under the lock before counting. */
const recountActiveTasksSql = (schema: string) => `
create or replace function ${schema}.gengate_recount_active_tasks() returns setof uuid language plpgsql as $$
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
end $$;`;

/** 018's admission of queued tasks, folding first (the caller holds the account lock). */
const admitQueuedSql = (schema: string) => `
create or replace function ${schema}.gengate_admit_queued(p_user uuid, p_modality text, p_max_running integer, p_boss text)
returns integer language plpgsql as $$
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
end $$;`;

/** 018's alert rule over the whole account (the row and its pending rows). */
const checkAlertsSql = (schema: string) => `
create or replace function ${schema}.gengate_check_alerts(p_user uuid, p_boss text) returns integer language plpgsql as $$
declare
  balance bigint;
  a record;
  mails integer := 0;
begin
  select balance_micro into balance from ${schema}.account_totals where user_id = p_user;
  if balance is null then return 0; end if;
  for a in select id, armed, threshold_micro from ${schema}.balance_alerts where user_id = p_user order by created_at, id loop
    if a.armed and balance < a.threshold_micro then
      update ${schema}.balance_alerts set armed = false where id = a.id;
      perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-alert-mail', gen_random_uuid(),
        jsonb_build_object('alertId', a.id, 'balanceMicro', balance), null, null);
      mails := mails + 1;
    elsif not a.armed and balance >= a.threshold_micro then
      update ${schema}.balance_alerts set armed = true where id = a.id;
    end if;
  end loop;
  return mails;
end $$;`;

/** After an unlocked end that found a queued task of its user: the account locked, folded, the queue admitted. */
const admitAfterEndSql = (schema: string) => `
create or replace function ${schema}.gengate_admit_after_end(p_user uuid, p_modality text, p_max_running integer, p_boss text)
returns integer language plpgsql as $$
begin
  perform 1 from ${schema}.accounts where user_id = p_user for update;
  return ${schema}.gengate_admit_queued(p_user, p_modality, p_max_running, p_boss);
end $$;`;

export { admitAfterEndSql, admitQueuedSql, checkAlertsSql, countActiveTasksSql, foldPendingSql, pendingTableSql, recountActiveTasksSql };
