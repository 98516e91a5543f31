import { capExceeded, USER_CAPS } from '../errors/caps.js';
import { keyControlsOf, NO_KEY_CONTROLS, type ApiKeyRecord } from '../model/api-key.js';
import type { ApiKeyPatch, KeyStore, NewApiKey } from '../ports/stores.js';
import type { MemoryDatabase } from './memory-database.js';
import { moveKeySpendIntoPeriod } from './memory-key-period-change.js';

export class MemoryKeyStore implements KeyStore {
  constructor(private readonly db: MemoryDatabase) {}
  async insert(k: NewApiKey): Promise<ApiKeyRecord> {
    // Count and insert run without an await in between: atomic, like the PostgreSQL trigger.
    const active = [...this.db.keys.values()].filter((x) => x.userId === k.userId && !x.revokedAt).length;
    if (active >= USER_CAPS.api_keys) throw capExceeded('api_keys');
    const rec: ApiKeyRecord = { ...k, memberId: k.memberId ?? k.userId, controls: { ...NO_KEY_CONTROLS, ...k.controls }, createdAt: new Date(), lastUsedAt: null, revokedAt: null };
    this.db.keys.set(k.id, rec);
    return rec;
  }
  async findActiveByHash(hash: string) {
    return [...this.db.keys.values()].find((k) => k.secretHash === hash && !k.revokedAt) ?? null;
  }
  async findActiveForUser(id: string, userId: string) {
    const k = this.db.keys.get(id);
    return k && k.userId === userId && !k.revokedAt ? k : null;
  }
  async listActiveForUser(userId: string) {
    return [...this.db.keys.values()]
      .filter((k) => k.userId === userId && !k.revokedAt)
      .reverse() // insertion order breaks ties between keys created in the same millisecond
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }
  async countActiveForUser(userId: string) {
    return (await this.listActiveForUser(userId)).length;
  }
  async update(id: string, userId: string, patch: ApiKeyPatch) {
    const k = await this.findActiveForUser(id, userId);
    if (!k) return null;
    const next: ApiKeyRecord = {
      ...k,
      name: patch.name ?? k.name,
      limits: { ...k.limits, ...patch.limits },
      ipWhitelist: patch.ipWhitelist ?? k.ipWhitelist,
      controls: { ...NO_KEY_CONTROLS, ...k.controls, ...patch.controls },
    };
    this.db.keys.set(id, next);
    const period = keyControlsOf(next).budgetPeriod;
    if (period !== keyControlsOf(k).budgetPeriod) moveKeySpendIntoPeriod(this.db, id, period, new Date());
    return next;
  }
  async revoke(id: string, userId: string) {
    const k = await this.findActiveForUser(id, userId);
    if (!k) return false;
    this.db.keys.set(id, { ...k, revokedAt: new Date() });
    return true;
  }
  async lockActive(id: string) {
    const k = this.db.keys.get(id);
    return k !== undefined && !k.revokedAt;
  }
  async touchLastUsed(id: string, at: Date) {
    const k = this.db.keys.get(id);
    if (k) this.db.keys.set(id, { ...k, lastUsedAt: at });
  }
}
