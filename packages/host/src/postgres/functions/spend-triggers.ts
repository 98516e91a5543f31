import type { SqlFunction } from './sql-function.js';

/**
 * The per-period spend figures of a key (`key_spend`, 019) and of an organization's member (`member_spend`,
 * 026), kept by triggers whatever path holds, settles or releases: one rule for both, each table described
 * by where its row's identity comes from on the hold.
 */
interface SpendTable {
  /** `key` or `member`: the functions are gengate_<kind>_spend_hold and gengate_<kind>_spend_charge. */
  readonly kind: 'key' | 'member';
  readonly table: 'key_spend' | 'member_spend';
  /** The spend row's identity columns (besides `period_start`), each with the `holds` column it comes from. */
  readonly identity: readonly (readonly [spendColumn: string, holdColumn: string])[];
  /** The `holds` column with the hold's period of that table (null: the hold counts in no period). */
  readonly period: string;
}

const KEY_SPEND: SpendTable = { kind: 'key', table: 'key_spend', identity: [['api_key_id', 'api_key_id']], period: 'key_period_start' };
const MEMBER_SPEND: SpendTable = {
  kind: 'member',
  table: 'member_spend',
  identity: [['organization_id', 'user_id'], ['member_id', 'member_id']],
  period: 'member_period_start',
};

/** A trigger function (no arguments, returns null: an AFTER trigger's) around `body`, PL/pgSQL statements. */
function triggerFunction(name: string, body: (schema: string) => string): SqlFunction {
  return {
    name,
    identityArgs: '',
    sql: (schema) => `
create or replace function ${schema}.${name}() returns trigger
language plpgsql as $$
begin${body(schema)}
  return null;
end $$;`,
  };
}

/** Whether the statement runs in a task end that does not lock the account row (020's `gengate.defer_account`). */
const DEFERRED = `current_setting('gengate.defer_account', true) = 'on'`;

/**
 * The setting under which the triggers leave a statement's holds and usage charges to the statement, which
 * appends their pending rows itself, one per spend row (gengate_finish_successes's unlocked path: endSpendPending).
 */
export const END_SPEND = 'gengate.end_spend';
const BY_END = `current_setting('${END_SPEND}', true) = 'on'`;

/**
 * The statement that adds a hold's amount to its spend row (the row created at the period's first hold):
 * `identity` the identity's values (SQL expressions, in SpendTable order), `period` and `amount` the hold's.
 */
function heldAdded({ table, identity }: SpendTable, schema: string, values: { identity: readonly string[]; period: string; amount: string }): string {
  const columns = identity.map(([spend]) => spend).join(', ');
  return `insert into ${schema}.${table} (${columns}, period_start, held_micro)
      values (${values.identity.join(', ')}, ${values.period}, ${values.amount})
      on conflict (${columns}, period_start) do update set held_micro = ${table}.held_micro + excluded.held_micro;`;
}

/** A submission's hold added to its key's spend row (gengate_submit_locked_task; the trigger below for the other paths). */
export const keySpendHeld = (schema: string, key: string, period: string, amount: string): string => heldAdded(KEY_SPEND, schema, { identity: [key], period, amount });
/** A submission's hold added to its member's spend row in the organization. */
export const memberSpendHeld = (schema: string, organization: string, member: string, period: string, amount: string): string =>
  heldAdded(MEMBER_SPEND, schema, { identity: [organization, member], period, amount });

/**
 * Trigger on holds (on update; migration 033): the spend row's held_micro of the hold's identity and period
 * follows the hold (taken out when it leaves 'held' or moves period, added in the period it moves to). An end
 * that does not lock the account row (029) appends its change to the table's `_pending` twin instead of
 * updating the spend row, which every submission of the key (or member) updates too: a worker's end no
 * longer waits for the user's submissions, nor they for it. A hold's insert is a submission's, which adds
 * its amount to the spend row itself (keySpendHeld, memberSpendHeld): until 033 this trigger did, as a
 * statement of its own plus a fold of that row's pending rows, for every submission. A batch of successes'
 * holds are the batch's own to append (END_SPEND, endSpendPending).
 */
function spendHold(t: SpendTable): SqlFunction {
  const { kind, table, identity, period } = t;
  const columns = identity.map(([spend]) => spend).join(', ');
  const oldRow = identity.map(([spend, hold]) => `${spend} = old.${hold}`).join(' and ');
  const oldValues = identity.map(([, hold]) => `old.${hold}`).join(', ');
  return triggerFunction(`gengate_${kind}_spend_hold`, (schema) => `
  if tg_op = 'UPDATE' and ${BY_END} then return null; end if;
  if tg_op = 'UPDATE' and old.${period} is not null and old.state = 'held' then
    if ${DEFERRED} then
      insert into ${schema}.${table}_pending (${columns}, period_start, held_micro) values (${oldValues}, old.${period}, -old.amount_micro);
    else
      update ${schema}.${table} set held_micro = held_micro - old.amount_micro
        where ${oldRow} and period_start = old.${period};
    end if;
  end if;
  if new.${period} is not null and new.state = 'held' then
    ${heldAdded(t, schema, { identity: identity.map(([, hold]) => `new.${hold}`), period: `new.${period}`, amount: 'new.amount_micro' })}
  end if;`);
}

/**
 * The pending rows (029) of an organization's spend rows folded into them, once per submission batch under the
 * account lock (gengate_submit_task, gengate_submit_tasks): the spend rows that have pending rows are locked
 * first, in order, and exactly their pending rows are folded, as the key's period change does (a spend row
 * before its pending rows, everywhere). `owned` says which pending rows `q` are the organization's `p_user`.
 */
function foldSpendPending({ table, identity }: SpendTable, schema: string, owned: (q: string) => string): string {
  const columns = identity.map(([spend]) => spend);
  const on = (a: string, b: string) => [...columns, 'period_start'].map((c) => `${a}.${c} = ${b}.${c}`).join(' and ');
  return `
  select array_agg(x.s) into v_${table} from (select s from ${schema}.${table} s
    where (${columns.map((c) => `s.${c}`).join(', ')}, s.period_start) in (select ${columns.map((c) => `q.${c}`).join(', ')}, q.period_start from ${schema}.${table}_pending q where ${owned('q')})
    order by ${columns.map((c) => `s.${c}`).join(', ')}, s.period_start for update) x;
  if v_${table} is not null then
    with d as (delete from ${schema}.${table}_pending q using unnest(v_${table}) r where ${on('q', 'r')} returning q.*),
    f as (select ${columns.join(', ')}, period_start, sum(held_micro) as held_micro, sum(charged_micro) as charged_micro from d group by ${columns.join(', ')}, period_start)
    update ${schema}.${table} s set held_micro = s.held_micro + f.held_micro, charged_micro = s.charged_micro + f.charged_micro
      from f where ${on('s', 'f')};
  end if;`;
}

/** gengate_fold_spend_pending(p_user): the organization's keys' and members' pending spend, folded (foldSpendPending). */
export const foldSpendPendingFunction: SqlFunction = {
  name: 'gengate_fold_spend_pending',
  identityArgs: 'uuid',
  sql: (schema) => `
create or replace function ${schema}.gengate_fold_spend_pending(p_user uuid) returns void
language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  v_key_spend ${schema}.key_spend[];
  v_member_spend ${schema}.member_spend[];
begin${foldSpendPending(KEY_SPEND, schema, (q) => `${q}.api_key_id in (select k.id from ${schema}.api_keys k where k.user_id = p_user)`)}${foldSpendPending(MEMBER_SPEND, schema, (q) => `${q}.organization_id = p_user`)}
end $$;`,
};

/**
 * Trigger on transactions: a usage charge added to the spend row's charged_micro of its hold's identity and
 * period (deferred as in spendHold; a batch of successes' charges are the batch's own, END_SPEND).
 */
function spendCharge({ kind, table, identity, period }: SpendTable): SqlFunction {
  const join = identity.map(([spend, hold]) => `s.${spend} = h.${hold}`).join(' and ');
  const columns = identity.map(([spend]) => spend).join(', ');
  const holdValues = identity.map(([, hold]) => `h.${hold}`).join(', ');
  return triggerFunction(`gengate_${kind}_spend_charge`, (schema) => `
  if ${BY_END} then return null; end if;
  if ${DEFERRED} then
    insert into ${schema}.${table}_pending (${columns}, period_start, charged_micro)
      select ${holdValues}, h.${period}, -new.credits_micro from ${schema}.holds h
      where h.task_id = new.task_id and h.${period} is not null;
  else
    update ${schema}.${table} s set charged_micro = s.charged_micro - new.credits_micro
      from ${schema}.holds h
      where h.task_id = new.task_id and h.${period} is not null
        and ${join} and s.period_start = h.${period};
  end if;`);
}

/**
 * A batch of ends' holds settled and charged, appended to the spend tables' pending rows as the triggers'
 * deferred path does (the hold's amount out of held_micro, the charge into charged_micro, in the hold's
 * period), but one row per spend row for the whole batch: `rows` is a FROM item of the settled holds with
 * the holds' columns (`user_id` the hold's, `api_key_id`, `key_period_start`, `member_id`,
 * `member_period_start`), `amount_micro` and `charge`. One statement per table (CTE-able `insert`s); the
 * statement that settles the holds runs under END_SPEND, so the triggers leave them.
 */
export function endSpendPending(schema: string, rows: string): string[] {
  return [KEY_SPEND, MEMBER_SPEND].map(({ table, identity, period }) => {
    const columns = identity.map(([spend]) => spend).join(', ');
    const values = identity.map(([, hold]) => `r.${hold}`).join(', ');
    return `insert into ${schema}.${table}_pending (${columns}, period_start, held_micro, charged_micro)
      select ${values}, r.${period}, -sum(r.amount_micro), sum(r.charge) from ${rows} r
      where r.${period} is not null group by ${values}, r.${period}`;
  });
}

/** Trigger on holds (019): key_spend.held_micro follows the hold. */
export const keySpendHold: SqlFunction = spendHold(KEY_SPEND);
/** Trigger on transactions (019): a usage charge added to key_spend.charged_micro. */
export const keySpendCharge: SqlFunction = spendCharge(KEY_SPEND);
/** Trigger on holds (026): member_spend.held_micro follows the hold. */
export const memberSpendHold: SqlFunction = spendHold(MEMBER_SPEND);
/** Trigger on transactions (026): a usage charge added to member_spend.charged_micro. */
export const memberSpendCharge: SqlFunction = spendCharge(MEMBER_SPEND);
