import { budgetPeriodStart } from '../keys/key-budget-period.js';
import type { BudgetPeriod } from '../model/api-key.js';
import type { MemoryDatabase } from './memory-database.js';

/**
 * A key's budget period changed (to `period`, at `now`): every hold of the key whose task was submitted
 * since the new period's start counts in that period from now on, so the current period's spend is what the
 * key held and was charged since it started (not zero). The memory twin of migration 027's
 * gengate_key_budget_period_changed: MemoryKeyBudgetStore computes a period's spend from the holds stamped
 * with it, so restamping them is the whole move. Holds before the period's start keep their stamps.
 */
export function moveKeySpendIntoPeriod(db: MemoryDatabase, keyId: string, period: BudgetPeriod, now: Date): void {
  const start = budgetPeriodStart(period, now);
  const stamp = start.toISOString();
  for (const [taskId, h] of db.holds) {
    if (h.keyId !== keyId || h.keyPeriodStart === undefined || h.keyPeriodStart === stamp) continue;
    const task = db.tasks.get(taskId);
    if (!task || task.createdAt.getTime() < start.getTime()) continue;
    db.holds.set(taskId, { ...h, keyPeriodStart: stamp });
  }
}
