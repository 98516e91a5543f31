import type { SqlFunction } from './sql-function.js';
import { queuedOf } from './count-active-tasks.js';
import { slotsLock } from './slots-lock.js';

/**
 * The steps of a task's failure (gengate_finish_fail; a success is gengate_finish_successes, which makes each
 * kind of write once per batch), PL/pgSQL text interpolated into its body, so the end stays one statement
 * with no nested function call of its own: the variables, the
 * job completed and the task read, the account row locked or the unlocked end set up (020), the early return
 * when the task had already ended, the hold taken out of 'held', the callback job, admission of the next
 * queued task, and the end's report. Not a SQL function of its own: PL/pgSQL text.
 */
export interface TaskEnd {
  readonly name: string;
  readonly identityArgs: string;
  /** The parameter list; the shared steps read `p_task_id`, `p_boss`, `p_job_queue`, `p_job_id`, `p_job_attempt`. */
  readonly params: string;
  /** Declarations of the end's own variables, placed after `hold_amount`. */
  readonly declare?: string;
  /** The columns of the task read into `t` (at least `user_id, modality, callback_url`). */
  readonly columns: string;
  /** The end's own statements, between the task read (with the lock) and the report. */
  readonly body: (schema: string) => string;
  /** A jsonb expression appended to the report with `||`. */
  readonly report?: (schema: string) => string;
}

/** A task end: `body` between the shared start (job completed, task read, lock) and the shared report. */
export function taskEndFunction(end: TaskEnd): SqlFunction {
  return {
    name: end.name,
    identityArgs: end.identityArgs,
    sql: (schema) => `
create or replace function ${schema}.${end.name}(
  ${end.params}
) returns jsonb
language plpgsql as $$
declare
  t record;
  hold_amount bigint;${end.declare === undefined ? '' : `\n  ${end.declare}`}
  locked boolean;
  admit_after boolean := false;
  n_generate integer := 0;
  n_callback integer := 0;
  n_mail integer := 0;
begin
  perform ${schema}.gengate_complete_job(p_boss, p_job_queue, p_job_id, p_job_attempt);
  select ${end.columns} into t from ${schema}.tasks where id = p_task_id;
  if not found then return jsonb_build_object('ended', false); end if;
  
  locked := exists (select 1 from ${schema}.balance_alerts where user_id = t.user_id);
  if locked then
    perform 1 from ${schema}.accounts where user_id = t.user_id for update;
  else
    perform set_config('gengate.defer_account', 'on', true);
    ${slotsLock('t.user_id', 'shared')}
  end if;${end.body(schema)}
  
  perform set_config('gengate.defer_account', 'off', true);
  -- The account row's own queued count first: account_pending only ever lowers a queued count (the ends'
  -- deferred decrements), so when the row counts none queued there is none, and account_pending (not
  -- vacuumed between folds, read by a sequential scan) is not read.
  if not locked and exists (select 1 from ${schema}.accounts a where a.user_id = t.user_id and ${queuedOf('a', 't.modality')} > 0) then
    admit_after := exists (select 1 from ${schema}.account_totals a where a.user_id = t.user_id and ${queuedOf('a', 't.modality')} > 0);
  end if;
  return jsonb_build_object('ended', true, 'generate', n_generate, 'callback', n_callback, 'alertMail', n_mail,
    'admitAfter', admit_after, 'userId', t.user_id, 'modality', t.modality)${end.report === undefined ? '' : ` || ${end.report(schema)}`};
end $$;`,
  };
}

/** The steps of an end's body that both ends take. */
export const taskEndStep = {
  /** Right after the task row's update: `ended: false` when no row changed (the task had already ended). */
  ifNotEnded: `if not found then begin perform set_config('gengate.defer_account', 'off', true); return jsonb_build_object('ended', false); end; end if;`,
  /** The hold moved from 'held' to `state`, its amount into `hold_amount` (`found` when there was one). */
  takeHold: (schema: string, state: 'settled' | 'released'): string =>
    `update ${schema}.holds set state = '${state}', updated_at = now() where task_id = p_task_id and state = 'held' returning amount_micro into hold_amount;`,
  /** The callback job, when the task has a callback URL. */
  callback: (schema: string): string => `if t.callback_url is not null then
    perform ${schema}.gengate_enqueue_job(p_boss, 'gengate-callback', gen_random_uuid(), jsonb_build_object('taskId', p_task_id), t.user_id::text, null);
    n_callback := 1;
  end if;`,
  /** Admission of the user's next queued task on the locked path, `maxRunning` the SQL expression of the modality's limit. */
  admitQueued: (schema: string, maxRunning: string): string => `if locked then
    n_generate := ${schema}.gengate_admit_queued(t.user_id, t.modality, ${maxRunning}, p_boss);
  end if;`,
} as const;
