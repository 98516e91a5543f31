import { slotsLock } from './slots-lock.js';

/**
 * The account row of a submission, kept in PL/pgSQL variables while its caller holds the row's lock (issue 23):
 * what gengate_submit_task and gengate_submit_tasks share, written once and interpolated into both bodies (as
 * task-end.ts does for the ends). Not a SQL function of its own: PL/pgSQL text.
 *
 * Each submission changed the account row twice, in statements of its own: its hold (`held_micro`) and, by the
 * tasks_count_active trigger on the task's insert, its running or queued count. In a batch, each of those
 * updates wrote one more version of the same row, each fired the row's foreign-key check again (the version
 * was the transaction's own) and, from a subtransaction, made a MultiXact of the batch's lock: a third of a
 * submission's time in PostgreSQL. Now the caller reads the row once after its lock and fold (`acc`), each
 * item reads its figures from `acc` and adds its hold and count to it, and the caller writes the row once,
 * at the end, with what `acc` gained since the row was read (`wrote`). While the caller holds the lock, the
 * row changes only here: the ends of the user's tasks that commit meanwhile append to account_pending (020)
 * and a top-up, a refund or another submission waits for the lock.
 *
 * The count's rule (a task waiting or generating counts as running when admitted, else as queued) is the
 * trigger's (count-active-tasks.ts); a submitted task is always 'waiting', so `applied` adds one to the
 * item's modality. While `gengate.submission_counts` is 'on' the trigger leaves the task's insert to it.
 */

/** The variables: `acc` the row as it will be, `wrote` as it is in the table. */
export const tallyDeclare = (schema: string): string => `acc ${schema}.accounts;
  wrote ${schema}.accounts;`;

/** After the account row's lock and fold: the row read into both, and the trigger told the counts are ours. */
export const tallyRead = (schema: string, user: string): string => `
  select * into acc from ${schema}.accounts where user_id = ${user};
  wrote := acc;
  perform set_config('gengate.submission_counts', 'on', true);`;

const COUNTED = ['held_micro', 'running_chat', 'running_image', 'running_video', 'queued_chat', 'queued_image', 'queued_video'] as const;

/** What `acc` gained since the row was read, written in one update (none when it gained nothing). */
const flush = (schema: string, user: string): string => `
  if acc is distinct from wrote then
    update ${schema}.accounts set
      ${COUNTED.map((c) => `${c} = ${c} + (acc.${c} - wrote.${c})`).join(',\n      ')}
    where user_id = ${user};
    wrote := acc;
  end if;`;

/** The item's modality's count in `acc`: `kind` running or queued (in parentheses: PL/pgSQL's IF reads up to the first THEN outside them). */
export const tallyCount = (kind: 'running' | 'queued', modality: string): string =>
  `(case ${modality} when 'chat' then acc.${kind}_chat when 'image' then acc.${kind}_image else acc.${kind}_video end)`;

/**
 * Before an item whose modality is at the running limit in `acc`: the row written, the ends in flight waited
 * for (each holds the user's slots lock shared; 020) and folded, the row read again. So the item is never
 * queued behind a slot that an end is freeing (gengate_submit_locked_task then only compares).
 */
export const tallyAtLimit = (schema: string, user: string, modality: string, maxRunning: string): string => `
  if ${tallyCount('running', modality)} >= ${maxRunning} then
    ${flush(schema, user)}
    ${slotsLock(user, 'exclusive')}
    perform ${schema}.gengate_fold_pending(${user});
    select * into acc from ${schema}.accounts where user_id = ${user};
    wrote := acc;
  end if;`;

/** After an item was accepted: its hold and its task's count added to `acc`. */
export const tallyApplied = (modality: string, quoted: string, admitted: string): string => `
  acc.held_micro := acc.held_micro + ${quoted};
  if ${admitted} then
    case ${modality} when 'chat' then acc.running_chat := acc.running_chat + 1;
      when 'image' then acc.running_image := acc.running_image + 1; else acc.running_video := acc.running_video + 1; end case;
  else
    case ${modality} when 'chat' then acc.queued_chat := acc.queued_chat + 1;
      when 'image' then acc.queued_image := acc.queued_image + 1; else acc.queued_video := acc.queued_video + 1; end case;
  end if;`;

/** At the end: the row written, and the trigger's insert counting back on for the rest of the transaction. */
export const tallyWritten = (schema: string, user: string): string => `${flush(schema, user)}
  perform set_config('gengate.submission_counts', 'off', true);`;

/** The arguments gengate_submit_locked_task reads its figures from (after its own parameters). */
export const tallyArguments = (modality: string): string =>
  `acc.balance_micro - acc.held_micro, ${tallyCount('running', modality)}, ${tallyCount('queued', modality)}`;
