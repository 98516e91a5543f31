import type { IdempotencyStore } from '../ports/stores.js';
import type { JsonObject } from '../util/json.js';
import type { MemoryDatabase } from './memory-database.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

export class MemoryIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: MemoryDatabase) {}
  async find(userId: string, key: string) {
    const r = this.db.idempotency.get(`${userId}:${key}`);
    return r && Date.now() - r.at < IDEMPOTENCY_TTL_MS ? { requestHash: r.requestHash, response: r.response } : null;
  }
  async save(userId: string, key: string, requestHash: string, response: JsonObject) {
    if (await this.find(userId, key)) return false;
    this.db.idempotency.set(`${userId}:${key}`, { requestHash, response, at: Date.now() });
    return true;
  }
}
