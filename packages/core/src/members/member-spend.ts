import { budgetPeriodStart, budgetResetsAt } from '../keys/key-budget-period.js';
import type { MembershipRecord } from '../model/organization.js';
import type { MemberBudgetStore } from '../ports/member-budget-store.js';
import { microToCredits } from '../util/money.js';

/** What a member has used in their current budget period (the Member object's figures). */
export interface MemberSpend {
  readonly periodStart: Date;
  /** Held (tasks not settled yet) plus charged (settled) in this period, micro-credits. */
  readonly spentMicro: number;
  /** max(0, limit - spent); null without a limit. */
  readonly remainingMicro: number | null;
  /** When the next period starts; null for `none`. */
  readonly resetsAt: Date | null;
}

/** A member's figures at `at`, by their budget period (spend is counted whether or not they have a limit). */
export async function memberSpendOf(
  budgets: MemberBudgetStore,
  m: Pick<MembershipRecord, 'organizationId' | 'userId' | 'spendLimitMicro' | 'budgetPeriod'>,
  at: Date,
): Promise<MemberSpend> {
  const periodStart = budgetPeriodStart(m.budgetPeriod, at);
  const spentMicro = await budgets.spent(m.organizationId, m.userId, periodStart);
  return {
    periodStart,
    spentMicro,
    remainingMicro: m.spendLimitMicro === null ? null : Math.max(0, m.spendLimitMicro - spentMicro),
    resetsAt: budgetResetsAt(m.budgetPeriod, at),
  };
}

/** The Member object's `spent`, `remaining` and `resets_at` (docs/organizations.md), in credits. */
export interface MemberSpendView {
  readonly spent: number;
  readonly remaining: number | null;
  readonly resets_at: string | null;
}

export function toMemberSpendView(s: MemberSpend): MemberSpendView {
  return {
    spent: microToCredits(s.spentMicro),
    remaining: s.remainingMicro === null ? null : microToCredits(s.remainingMicro),
    resets_at: s.resetsAt?.toISOString() ?? null,
  };
}
