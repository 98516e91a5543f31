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

/**
 * Trigger on holds: the spend row's held_micro of the hold's identity and period follows the hold (added while
 * it is 'held', taken out when it leaves 'held' or moves period).
 */
function spendHold({ kind, table, identity, period }: SpendTable): SqlFunction {
  const columns = identity.map(([spend]) => spend).join(', ');
  const oldRow = identity.map(([spend, hold]) => `${spend} = old.${hold}`).join(' and ');
  const newValues = identity.map(([, hold]) => `new.${hold}`).join(', ');
  return triggerFunction(`gengate_${kind}_spend_hold`, (schema) => `
  if tg_op = 'UPDATE' and old.${period} is not null and old.state = 'held' then
    update ${schema}.${table} set held_micro = held_micro - old.amount_micro
      where ${oldRow} and period_start = old.${period};
  end if;
  if new.${period} is not null and new.state = 'held' then
    insert into ${schema}.${table} (${columns}, period_start, held_micro)
      values (${newValues}, new.${period}, new.amount_micro)
      on conflict (${columns}, period_start) do update set held_micro = ${table}.held_micro + excluded.held_micro;
  end if;`);
}

/** Trigger on transactions: a usage charge added to the spend row's charged_micro of its hold's identity and period. */
function spendCharge({ kind, table, identity, period }: SpendTable): SqlFunction {
  const join = identity.map(([spend, hold]) => `s.${spend} = h.${hold}`).join(' and ');
  return triggerFunction(`gengate_${kind}_spend_charge`, (schema) => `
  update ${schema}.${table} s set charged_micro = s.charged_micro - new.credits_micro
    from ${schema}.holds h
    where h.task_id = new.task_id and h.${period} is not null
      and ${join} and s.period_start = h.${period};`);
}

/** Trigger on holds (019): key_spend.held_micro follows the hold. */
export const keySpendHold: SqlFunction = spendHold(KEY_SPEND);
/** Trigger on transactions (019): a usage charge added to key_spend.charged_micro. */
export const keySpendCharge: SqlFunction = spendCharge(KEY_SPEND);
/** Trigger on holds (026): member_spend.held_micro follows the hold. */
export const memberSpendHold: SqlFunction = spendHold(MEMBER_SPEND);
/** Trigger on transactions (026): a usage charge added to member_spend.charged_micro. */
export const memberSpendCharge: SqlFunction = spendCharge(MEMBER_SPEND);
