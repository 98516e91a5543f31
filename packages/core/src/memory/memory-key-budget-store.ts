import type { KeyBudgetStore } from '../ports/key-budget-store.js';
import type { MemoryDatabase } from './memory-database.js';

/**
 * The KeyBudgetStore over the memory rows, computed from them (no cached figures): a period's spend is
 * the open holds tied to it plus the usage charges of the settled ones; the active tasks are counted.
 */
export class MemoryKeyBudgetStore implements KeyBudgetStore {
  constructor(private readonly db: MemoryDatabase) {}

  async usage(keyId: string, periodStart: Date) {
    const period = periodStart.toISOString();
    let spentMicro = 0;
    const settled = new Set<string>();
    for (const h of this.db.holds.values()) {
      if (h.keyId !== keyId || h.keyPeriodStart !== period) continue;
      if (h.state === 'held') spentMicro += h.amountMicro;
      else if (h.state === 'settled') settled.add(h.taskId);
    }
    if (settled.size > 0) {
      for (const t of this.db.transactions) if (t.taskId !== null && settled.has(t.taskId) && t.paymentMethod === 'usage' && t.status === 'completed') spentMicro -= t.creditsMicro;
    }
    let activeTasks = 0;
    for (const t of this.db.tasks.values()) if (t.apiKeyId === keyId && (t.status === 'waiting' || t.status === 'generating')) activeTasks++;
    return { spentMicro, activeTasks };
  }

  async recordHold(taskId: string, keyId: string, periodStart: Date) {
    const h = this.db.holds.get(taskId);
    if (h) this.db.holds.set(taskId, { ...h, keyId, keyPeriodStart: periodStart.toISOString() });
  }

  async markSoftThresholdReached(keyId: string, periodStart: Date) {
    const k = `${keyId}:${periodStart.toISOString()}`;
    if (this.db.keySoftAlerts.has(k)) return false;
    this.db.keySoftAlerts.set(k, true);
    return true;
  }
}
