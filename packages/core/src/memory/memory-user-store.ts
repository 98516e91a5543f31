import type { UserRecord } from '../model/user.js';
import type { UserStore } from '../ports/stores.js';
import { memberKey, type MemoryDatabase } from './memory-database.js';

export class MemoryUserStore implements UserStore {
  constructor(private readonly db: MemoryDatabase) {}
  async insert(u: { id: string; email: string }): Promise<UserRecord> {
    const rec = { id: u.id, email: u.email, createdAt: new Date() };
    this.db.users.set(u.id, rec);
    // As migration 025's trigger: the user's personal organization (id = the user's id) and its owner.
    this.db.organizations.set(u.id, { id: u.id, name: u.email, personal: true, createdAt: rec.createdAt });
    this.db.members.set(memberKey(u.id, u.id), {
      organizationId: u.id,
      userId: u.id,
      role: 'owner',
      spendLimitMicro: null,
      budgetPeriod: 'month',
      createdAt: rec.createdAt,
    });
    return rec;
  }
  async findById(id: string) {
    return this.db.users.get(id) ?? null;
  }
  async findByEmail(email: string) {
    return [...this.db.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase()) ?? null;
  }
}
