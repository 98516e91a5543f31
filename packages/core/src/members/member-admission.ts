import type { TransactionScope } from '../ports/stores.js';
import { budgetPeriodStart, budgetResetsAt } from '../keys/key-budget-period.js';

/** Why the member's limit refused a submission (TaskIntakeResult `member_budget_exceeded`). */
export interface MemberBudgetRefusal {
  readonly outcome: 'member_budget_exceeded';
  readonly limitMicro: number;
  readonly spentMicro: number;
  readonly resetsAt: Date | null;
}

/**
 * A submission's check on its member's spend limit, inside the unit of work that holds its credits (after
 * the organization's account lock, after the key's own checks, before the balance hold): what the member
 * held and was charged in the period `at` falls in (by the member's budget_period, UTC boundaries of
 * key-budget-period.ts), plus the quote, must stay within the limit. Then, once the caller's hold is
 * written (`afterHold`), the hold is tied to the member and that period. A submitter who is not a member
 * of the organization, or who submits in their personal organization without a limit, is neither limited nor counted. The PostgreSQL twin is gengate_member_budget_admit
 * (migration 026): change both together.
 */
export async function admitOnMember(
  tx: TransactionScope,
  task: { readonly userId: string; readonly memberId?: string; readonly quotedMicro: number },
  at: Date,
): Promise<{ refusal: MemberBudgetRefusal } | { afterHold(taskId: string): Promise<void> }> {
  const memberId = task.memberId ?? task.userId;
  const limit = await tx.memberBudgets.limitOf(task.userId, memberId);
  if (limit === null) return { afterHold: async () => undefined };
  // A personal organization (its id is its one member's) keeps its member's spend only while a limit is set.
  if (memberId === task.userId && limit.spendLimitMicro === null) return { afterHold: async () => undefined };
  const periodStart = budgetPeriodStart(limit.budgetPeriod, at);
  if (limit.spendLimitMicro !== null) {
    const spentMicro = await tx.memberBudgets.spent(task.userId, memberId, periodStart);
    if (spentMicro + task.quotedMicro > limit.spendLimitMicro) {
      return { refusal: { outcome: 'member_budget_exceeded', limitMicro: limit.spendLimitMicro, spentMicro, resetsAt: budgetResetsAt(limit.budgetPeriod, at) } };
    }
  }
  return { afterHold: (taskId) => tx.memberBudgets.recordHold(taskId, memberId, periodStart) };
}
