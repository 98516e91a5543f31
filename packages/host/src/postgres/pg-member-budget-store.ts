import type { BudgetPeriod, MemberBudgetStore, MemberSpendLimit } from '@gengate/core';
import { toSafeInt, type Queryable } from './queryable.js';

/** The statements, built once per schema (createPgStores). */
export const memberBudgetSql = (schema: string) => ({
  limitOf: `select spend_limit_micro, budget_period from ${schema}.organization_members where organization_id = $1 and user_id = $2`,
  spent: `select coalesce((select held_micro + charged_micro from ${schema}.member_spend_totals where organization_id = $1 and member_id = $2 and period_start = $3), 0) as spent`,
  recordHold: `update ${schema}.holds set member_id = $2, member_period_start = $3 where task_id = $1`,
});
export type MemberBudgetSql = ReturnType<typeof memberBudgetSql>;

/**
 * The MemberBudgetStore on PostgreSQL (migration 026): the limit is organization_members', the period's
 * figures are member_spend's, which the triggers on holds and transactions keep. gengate_submit_task does
 * the same inside its own statement (gengate_member_budget_admit); this serves the unit-of-work intake and
 * the members list.
 */
export class PgMemberBudgetStore implements MemberBudgetStore {
  constructor(
    private readonly db: Queryable,
    private readonly sql: MemberBudgetSql,
  ) {}

  async limitOf(organizationId: string, memberId: string): Promise<MemberSpendLimit | null> {
    const { rows } = await this.db.query<{ spend_limit_micro: string | null; budget_period: BudgetPeriod }>(this.sql.limitOf, [organizationId, memberId]);
    const r = rows[0];
    if (!r) return null;
    return { spendLimitMicro: r.spend_limit_micro === null ? null : toSafeInt(r.spend_limit_micro), budgetPeriod: r.budget_period };
  }

  async spent(organizationId: string, memberId: string, periodStart: Date) {
    const { rows } = await this.db.query<{ spent: string }>(this.sql.spent, [organizationId, memberId, periodStart]);
    return toSafeInt(rows[0]?.spent ?? 0);
  }

  async recordHold(taskId: string, memberId: string, periodStart: Date) {
    await this.db.query(this.sql.recordHold, [taskId, memberId, periodStart]);
  }
}
