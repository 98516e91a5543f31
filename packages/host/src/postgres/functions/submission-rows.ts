import { QUEUES } from '../boss-queues.js';

/**
 * The rows an accepted submission writes that nothing in its batch reads back: its task, its hold and its
 * generation job. gengate_submit_locked_task decides and answers; its caller (gengate_submit_task,
 * gengate_submit_tasks) collects the accepted items' rows in PL/pgSQL arrays and inserts each kind in one
 * statement at the end (issue 23): an insert's executor start (its indexes opened, its CHECK constraints
 * parsed from their stored text, its partial indexes' predicates prepared) was paid per item; the task's
 * insert alone was the dearest statement of a submission by pg_stat_statements. Written once here and
 * interpolated into both callers, as account-tally.ts. Not a SQL function of its own: PL/pgSQL text.
 *
 * What reads them inside a batch: only a key's concurrency cap counts the key's tasks waiting or generating,
 * so gengate_key_budget_admit is given the keys of the tasks collected and not yet written (`v_task_keys`).
 * Everything else an item decides on is elsewhere (the account row in account-tally.ts, the spend rows and
 * the idempotency records, which each item still writes at once).
 */

/** The variables. */
export const rowsDeclare = (schema: string): string => `v_task ${schema}.tasks;
  v_hold ${schema}.holds;
  v_tasks ${schema}.tasks[];
  v_holds ${schema}.holds[];
  v_task_keys uuid[] := '{}';
  v_job_ids uuid[];
  v_job_data jsonb[];
  v_job_groups text[];`;

/** An item's values: SQL expressions (the caller's parameters, or the batch's item record). */
export interface SubmissionItem {
  readonly taskId: string;
  readonly userId: string;
  readonly apiKeyId: string;
  readonly modelId: string;
  readonly modality: string;
  readonly request: string;
  readonly callbackUrl: string;
  readonly quoted: string;
  readonly quotedCost: string;
  readonly memberId: string;
  readonly jobId: string;
  readonly providerId: string;
}

/**
 * After gengate_submit_locked_task accepted the item (`r` its answer: o_admitted, o_key_period,
 * o_member_period): its task (waiting), its hold (held, in its key's and member's periods) and, when
 * admitted with a job id, its generation job, collected.
 */
export const rowsAccepted = (i: SubmissionItem, r: string): string => `
  v_task.id := ${i.taskId}; v_task.user_id := ${i.userId}; v_task.api_key_id := ${i.apiKeyId};
  v_task.model_id := ${i.modelId}; v_task.modality := ${i.modality}; v_task.status := 'waiting';
  v_task.request := ${i.request}; v_task.callback_url := ${i.callbackUrl}; v_task.quoted_micro := ${i.quoted};
  v_task.quoted_cost_micro := ${i.quotedCost}; v_task.admitted := ${r}.o_admitted;
  v_task.member_id := coalesce(${i.memberId}, ${i.userId});
  v_tasks := v_tasks || v_task;
  v_task_keys := v_task_keys || ${i.apiKeyId};
  v_hold.task_id := ${i.taskId}; v_hold.user_id := ${i.userId}; v_hold.amount_micro := ${i.quoted}; v_hold.state := 'held';
  v_hold.api_key_id := ${i.apiKeyId}; v_hold.key_period_start := ${r}.o_key_period;
  v_hold.member_id := v_task.member_id; v_hold.member_period_start := ${r}.o_member_period;
  v_holds := v_holds || v_hold;
  if ${r}.o_admitted and ${i.jobId} is not null then
    v_job_ids := v_job_ids || ${i.jobId};
    v_job_data := v_job_data || jsonb_build_object('taskId', ${i.taskId});
    v_job_groups := v_job_groups || ${i.providerId};
  end if;`;

/** At the end: the collected rows, each kind in one statement (the tasks first: a hold's key to its task is checked at commit). */
export const rowsWritten = (schema: string, boss: string): string => `
  if v_tasks is not null then
    insert into ${schema}.tasks (id, user_id, api_key_id, model_id, modality, status, request, callback_url, quoted_micro, quoted_cost_micro, admitted, member_id)
      select t.id, t.user_id, t.api_key_id, t.model_id, t.modality, t.status, t.request, t.callback_url, t.quoted_micro, t.quoted_cost_micro, t.admitted, t.member_id
      from unnest(v_tasks) t;
    insert into ${schema}.holds (task_id, user_id, amount_micro, state, api_key_id, key_period_start, member_id, member_period_start)
      select h.task_id, h.user_id, h.amount_micro, h.state, h.api_key_id, h.key_period_start, h.member_id, h.member_period_start
      from unnest(v_holds) h;
  end if;
  if v_job_ids is not null then
    perform ${schema}.gengate_enqueue_jobs(${boss}, '${QUEUES.generate}', v_job_ids, v_job_data, v_job_groups, v_job_groups);
  end if;`;
