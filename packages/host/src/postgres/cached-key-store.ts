import type { ApiKeyPatch, ApiKeyRecord, KeyLookupOptions, KeyStore, NewApiKey } from '@gengate/core';
import { LRUCache } from 'lru-cache';

export interface KeyCacheOptions {
  /** How long a looked-up key may answer a request that accepts a cached key; default 2,000 ms. 0 turns the cache off. */
  readonly ttlMs?: number;
  /** Most keys kept (least recently used go first); default 10,000. */
  readonly max?: number;
  /** Milliseconds of a monotonic clock; default performance.now (tests move their own). */
  readonly now?: () => number;
}

export const DEFAULT_KEY_CACHE_TTL_MS = 2_000;

/**
 * Active API keys by the hash of their secret, in this process, each for at most `ttlMs` after it was read
 * from the database. A revoke or update made through this process forgets the key at once (and again once
 * its transaction committed); one made by another process shows here within the TTL. A lookup that was
 * under way while a key was forgotten does not put its (possibly older) row back.
 */
export class KeyCache {
  private readonly byHash: LRUCache<string, ApiKeyRecord> | null;
  /** Counts forgets: a lookup stores its row only when none happened while it ran. */
  private forgets = 0;

  constructor(options: KeyCacheOptions = {}) {
    const ttl = options.ttlMs ?? DEFAULT_KEY_CACHE_TTL_MS;
    // ttlResolution 0: each read asks the clock (performance.now, tens of nanoseconds). lru-cache's default
    // (1 ms) caches the time behind a 1 ms timer set again on the first read of each millisecond: one timer
    // per millisecond under load, and at 1,000 polls a second a timer (and its wake-up) for nearly every request.
    this.byHash = ttl > 0 ? new LRUCache<string, ApiKeyRecord>({ max: options.max ?? 10_000, ttl, ttlResolution: 0, ...(options.now ? { perf: { now: options.now } } : {}) }) : null;
  }

  get(secretHash: string): ApiKeyRecord | undefined {
    return this.byHash?.get(secretHash);
  }

  /** Reads the key with `lookup` and keeps what it found (forgets the hash when it found none). */
  async load(secretHash: string, lookup: () => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null> {
    const before = this.forgets;
    const key = await lookup();
    if (!this.byHash) return key;
    if (!key) this.byHash.delete(secretHash);
    else if (this.forgets === before) this.byHash.set(secretHash, key);
    return key;
  }

  /** Forgets every cached entry of this key (by id). */
  forget(keyId: string): void {
    this.forgets++;
    if (!this.byHash) return;
    for (const [hash, key] of this.byHash.entries()) if (key.id === keyId) this.byHash.delete(hash);
  }

  /** Records a last-used touch on the cached entry (its TTL unchanged), so the next request does not touch again. */
  touched(keyId: string, at: Date): void {
    if (!this.byHash) return;
    for (const [hash, key] of this.byHash.entries()) if (key.id === keyId) this.byHash.set(hash, { ...key, lastUsedAt: at }, { noUpdateTTL: true });
  }
}

/**
 * A KeyStore that answers lookups accepting a cached key (`acceptCached`) from a KeyCache, and every other
 * lookup from the store (refreshing the cache). Revokes and updates forget the key, now and after the
 * transaction they run in committed (`afterCommit`).
 */
export class CachedKeyStore implements KeyStore {
  constructor(
    private readonly inner: KeyStore,
    private readonly cache: KeyCache,
    /** Runs a function once the scope's transaction committed (at once for a scope that autocommits). */
    private readonly afterCommit: (fn: () => void) => void = (fn) => fn(),
  ) {}

  async findActiveByHash(secretHash: string, options?: KeyLookupOptions): Promise<ApiKeyRecord | null> {
    if (options?.acceptCached === true) {
      const cached = this.cache.get(secretHash);
      if (cached) return cached;
    }
    return this.cache.load(secretHash, () => this.inner.findActiveByHash(secretHash));
  }

  async revoke(id: string, userId: string): Promise<boolean> {
    this.cache.forget(id);
    const revoked = await this.inner.revoke(id, userId);
    this.afterCommit(() => this.cache.forget(id));
    return revoked;
  }

  async update(id: string, userId: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null> {
    this.cache.forget(id);
    const updated = await this.inner.update(id, userId, patch);
    this.afterCommit(() => this.cache.forget(id));
    return updated;
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.inner.touchLastUsed(id, at);
    this.cache.touched(id, at);
  }

  insert(key: NewApiKey): Promise<ApiKeyRecord> {
    return this.inner.insert(key);
  }

  findActiveForUser(id: string, userId: string): Promise<ApiKeyRecord | null> {
    return this.inner.findActiveForUser(id, userId);
  }

  listActiveForUser(userId: string): Promise<readonly ApiKeyRecord[]> {
    return this.inner.listActiveForUser(userId);
  }

  countActiveForUser(userId: string): Promise<number> {
    return this.inner.countActiveForUser(userId);
  }

  lockActive(id: string): Promise<boolean> {
    return this.inner.lockActive(id);
  }
}
