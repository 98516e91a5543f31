import type { Migration } from './migration.js';

/*
 * Spend rows off a task's end (issue 23, the dispatch under load). Every submission of a key updates that
 * key's key_spend row (its hold, 019), and every end updated the same row (the hold leaving 'held', the usage
 * charge): a worker's end batch and the user's submission batch waited for each other's commit (row lock,
 * WAL flush included), one after the other, so the ends fell behind the submissions at 200/s for one user.
 * As 020 did for the account row, an end that does not lock the account row now appends its change to
 * `key_spend_pending` (member_spend: `member_spend_pending`), insert only; the spend row plus its pending rows
 * is the spend (`key_spend_totals`, `member_spend_totals`, what every reader reads); a submission folds the
 * pending rows of the spend row its hold just updated (the hold trigger, under the account lock), and a key's
 * period change folds all of the key's first (under the slots lock, which every deferring end holds shared).
 * The deltas are additive and an end's only lowers the spend (held - hold + charge, charge <= hold): a
 * submission that does not see an end in flight sees more spent, never less.
 * Functions replaced here: gengate_key_spend_hold, gengate_key_spend_charge, gengate_member_spend_hold,
 * gengate_member_spend_charge (functions/spend-triggers.ts), gengate_key_budget_period_changed,
 * gengate_key_budget_admit and gengate_member_budget_admit (read the totals).
 */
const pendingAndTotals = (schema: string, table: string, identity: readonly string[], kept: readonly string[] = []) => `
create table ${schema}.${table}_pending (
  id bigint generated always as identity primary key,
${identity.map((c) => `  ${c} uuid not null,`).join('\n')}
  period_start timestamptz not null,
  held_micro bigint not null default 0,
  charged_micro bigint not null default 0
);
create index ${table}_pending_row on ${schema}.${table}_pending (${identity.join(', ')}, period_start);

create view ${schema}.${table}_totals as
  select ${identity.map((c) => `s.${c}`).join(', ')}, s.period_start,
    (s.held_micro + coalesce(p.held_micro, 0))::bigint as held_micro,
    (s.charged_micro + coalesce(p.charged_micro, 0))::bigint as charged_micro${kept.map((c) => `, s.${c}`).join('')}
  from ${schema}.${table} s
  left join lateral (select sum(q.held_micro) as held_micro, sum(q.charged_micro) as charged_micro
    from ${schema}.${table}_pending q where ${identity.map((c) => `q.${c} = s.${c}`).join(' and ')} and q.period_start = s.period_start) p on true;`;

export const spendPending: Migration = {
  version: 29,
  name: "a task's end appends its key and member spend changes to pending rows, folded by the submissions",
  up: (schema) => `${pendingAndTotals(schema, 'key_spend', ['api_key_id'], ['soft_alerted'])}
${pendingAndTotals(schema, 'member_spend', ['organization_id', 'member_id'])}
`,
};
