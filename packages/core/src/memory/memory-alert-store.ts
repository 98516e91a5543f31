import { capExceeded, USER_CAPS } from '../errors/caps.js';
import type { BalanceAlertRecord } from '../model/billing.js';
import type { AlertStore } from '../ports/stores.js';
import type { MemoryDatabase } from './memory-database.js';

export class MemoryAlertStore implements AlertStore {
  constructor(private readonly db: MemoryDatabase) {}
  async insert(a: { id: string; userId: string; thresholdMicro: number; armed: boolean }): Promise<BalanceAlertRecord> {
    if ([...this.db.alerts.values()].filter((x) => x.userId === a.userId).length >= USER_CAPS.balance_alerts) throw capExceeded('balance_alerts');
    const rec = { ...a, createdAt: new Date() };
    this.db.alerts.set(a.id, rec);
    return rec;
  }
  async listForUser(userId: string) {
    return [...this.db.alerts.values()].filter((a) => a.userId === userId);
  }
  async countForUser(userId: string) {
    return (await this.listForUser(userId)).length;
  }
  async findById(id: string) {
    return this.db.alerts.get(id) ?? null;
  }
  async delete(id: string, userId: string) {
    const a = this.db.alerts.get(id);
    if (!a || a.userId !== userId) return false;
    return this.db.alerts.delete(id);
  }
  async setArmed(id: string, armed: boolean) {
    const a = this.db.alerts.get(id);
    if (a) this.db.alerts.set(id, { ...a, armed });
  }
}
