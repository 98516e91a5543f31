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
 * Trigger on holds: the spend row's held_micro of the hold's identity and period follows the hold (added while
 * it is 'held', taken out when it leaves 'held' or moves period). An end that does not lock the account row
 * (029) appends its change to the table's `_pending` twin instead of updating the spend row, which every
 * submission of the key (or member) updates too: a worker's end no longer waits for the user's submissions,
 * nor they for it. A hold that becomes 'held' (a submission, under the account lock) folds the pending rows
 * of its own spend row into it, once that row is locked by its own update.
 */
function spendHold({ kind, table, identity, period }: SpendTable): SqlFunction {
  const columns = identity.map(([spend]) => spend).join(', ');
  const oldRow = identity.map(([spend, hold]) => `${spend} = old.${hold}`).join(' and ');
  const oldValues = identity.map(([, hold]) => `old.${hold}`).join(', ');
  const newRow = (alias: string) => identity.map(([spend, hold]) => `${alias}.${spend} = new.${hold}`).join(' and ');
  const newValues = identity.map(([, hold]) => `new.${hold}`).join(', ');
  return triggerFunction(`gengate_${kind}_spend_hold`, (schema) => `
  if tg_op = 'UPDATE' and old.${period} is not null and old.state = 'held' then
    if ${DEFERRED} then
      insert into ${schema}.${table}_pending (${columns}, period_start, held_micro) values (${oldValues}, old.${period}, -old.amount_micro);
    else
      update ${schema}.${table} set held_micro = held_micro - old.amount_micro
        where ${oldRow} and period_start = old.${period};
    end if;
  end if;
  if new.${period} is not null and new.state = 'held' then
    insert into ${schema}.${table} (${columns}, period_start, held_micro)
      values (${newValues}, new.${period}, new.amount_micro)
      on conflict (${columns}, period_start) do update set held_micro = ${table}.held_micro + excluded.held_micro;
    with d as (delete from ${schema}.${table}_pending q where ${newRow('q')} and q.period_start = new.${period} returning q.held_micro, q.charged_micro),
    f as (select count(*) as n, coalesce(sum(d.held_micro), 0) as held_micro, coalesce(sum(d.charged_micro), 0) as charged_micro from d)
    update ${schema}.${table} s set held_micro = s.held_micro + f.held_micro, charged_micro = s.charged_micro + f.charged_micro
      from f where f.n > 0 and ${newRow('s')} and s.period_start = new.${period};
  end if;`);
}

/** Trigger on transactions: a usage charge added to the spend row's charged_micro of its hold's identity and period (deferred as in spendHold). */
function spendCharge({ kind, table, identity, period }: SpendTable): SqlFunction {
  const join = identity.map(([spend, hold]) => `s.${spend} = h.${hold}`).join(' and ');
  const columns = identity.map(([spend]) => spend).join(', ');
  const holdValues = identity.map(([, hold]) => `h.${hold}`).join(', ');
  return triggerFunction(`gengate_${kind}_spend_charge`, (schema) => `
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

/** Trigger on holds (019): key_spend.held_micro follows the hold. */
export const keySpendHold: SqlFunction = spendHold(KEY_SPEND);
/** Trigger on transactions (019): a usage charge added to key_spend.charged_micro. */
export const keySpendCharge: SqlFunction = spendCharge(KEY_SPEND);
/** Trigger on holds (026): member_spend.held_micro follows the hold. */
export const memberSpendHold: SqlFunction = spendHold(MEMBER_SPEND);
/** Trigger on transactions (026): a usage charge added to member_spend.charged_micro. */
export const memberSpendCharge: SqlFunction = spendCharge(MEMBER_SPEND);
