import type { MemberBudgetStore, MemberSpendLimit } from '../ports/member-budget-store.js';
import { memberKey, type MemoryDatabase } from './memory-database.js';

/**
 * The MemberBudgetStore over the memory rows, computed from them (no cached figures): a period's spend is
 * the member's open holds tied to it plus the usage charges of the settled ones.
 */
export class MemoryMemberBudgetStore implements MemberBudgetStore {
  constructor(private readonly db: MemoryDatabase) {}

  async limitOf(organizationId: string, memberId: string): Promise<MemberSpendLimit | null> {
    const m = this.db.members.get(memberKey(organizationId, memberId));
    return m ? { spendLimitMicro: m.spendLimitMicro, budgetPeriod: m.budgetPeriod } : null;
  }

  async spent(organizationId: string, memberId: string, periodStart: Date) {
    const period = periodStart.toISOString();
    let spentMicro = 0;
    const settled = new Set<string>();
    for (const h of this.db.holds.values()) {
      if (h.userId !== organizationId || h.memberId !== memberId || h.memberPeriodStart !== period) continue;
      if (h.state === 'held') spentMicro += h.amountMicro;
      else if (h.state === 'settled') settled.add(h.taskId);
    }
    if (settled.size > 0) {
      for (const t of this.db.transactions) if (t.taskId !== null && settled.has(t.taskId) && t.paymentMethod === 'usage' && t.status === 'completed') spentMicro -= t.creditsMicro;
    }
    return spentMicro;
  }

  async recordHold(taskId: string, memberId: string, periodStart: Date) {
    const h = this.db.holds.get(taskId);
    if (h) this.db.holds.set(taskId, { ...h, memberId, memberPeriodStart: periodStart.toISOString() });
  }
}
