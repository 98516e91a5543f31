import { MemoryDatabase, MemoryKeyStore, type ApiKeyRecord, type KeyStore } from '@gengate/core/internal';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CachedKeyStore, KeyCache } from './cached-key-store.js';

/** A memory key store that counts its lookups by hash (what the cache saves). */
function countingStore(): { store: KeyStore; lookups: () => number } {
  const inner = new MemoryKeyStore(new MemoryDatabase());
  let lookups = 0;
  const find = inner.findActiveByHash.bind(inner);
  inner.findActiveByHash = async (hash: string) => {
    lookups++;
    return find(hash);
  };
  return { store: inner, lookups: () => lookups };
}

const USER = '00000000-0000-4000-8000-0000000000aa';
const newKey = (store: KeyStore, id: string, hash: string): Promise<ApiKeyRecord> =>
  store.insert({ id, userId: USER, name: id, secretHash: hash, mask: 'gg_…', limits: { perMinute: 5, perHour: null, perDay: null }, ipWhitelist: [] });

describe('CachedKeyStore', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reads a cached key on the real clock without setting a timer (a poll would otherwise pay one per millisecond)', async () => {
    const { store, lookups } = countingStore();
    const keys = new CachedKeyStore(store, new KeyCache({ ttlMs: 60_000 }));
    const key = await newKey(store, '00000000-0000-4000-8000-000000000009', 'h9');
    expect(await keys.findActiveByHash('h9', { acceptCached: true })).toEqual(key);
    const timers = vi.spyOn(globalThis, 'setTimeout');
    for (let i = 0; i < 3; i++) {
      expect(await keys.findActiveByHash('h9', { acceptCached: true })).toEqual(key);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(lookups()).toBe(1);
    expect(timers).not.toHaveBeenCalled();
  });

  it('answers a lookup that accepts a cached key from the cache for the TTL, then from the store again', async () => {
    let now = 1_000;
    const { store, lookups } = countingStore();
    const keys = new CachedKeyStore(store, new KeyCache({ ttlMs: 2_000, now: () => now }));
    const key = await newKey(store, '00000000-0000-4000-8000-000000000001', 'h1');
    expect(await keys.findActiveByHash('h1', { acceptCached: true })).toEqual(key);
    expect(await keys.findActiveByHash('h1', { acceptCached: true })).toEqual(key);
    expect(lookups()).toBe(1);
    now += 1_999;
    await keys.findActiveByHash('h1', { acceptCached: true });
    expect(lookups()).toBe(1);
    now += 2;
    await keys.findActiveByHash('h1', { acceptCached: true });
    expect(lookups()).toBe(2);
  });

  it('always asks the store for a lookup that does not accept a cached key, and never caches an unknown key', async () => {
    const { store, lookups } = countingStore();
    const keys = new CachedKeyStore(store, new KeyCache());
    await newKey(store, '00000000-0000-4000-8000-000000000002', 'h2');
    await keys.findActiveByHash('h2');
    await keys.findActiveByHash('h2');
    expect(lookups()).toBe(2);
    expect(await keys.findActiveByHash('unknown', { acceptCached: true })).toBeNull();
    expect(await keys.findActiveByHash('unknown', { acceptCached: true })).toBeNull();
    expect(lookups()).toBe(4);
  });

  it('forgets a key revoked or updated through it at once (a revocation by another process shows within the TTL)', async () => {
    const { store } = countingStore();
    const keys = new CachedKeyStore(store, new KeyCache({ ttlMs: 60_000 }));
    const a = await newKey(store, '00000000-0000-4000-8000-000000000003', 'h3');
    const b = await newKey(store, '00000000-0000-4000-8000-000000000004', 'h4');
    await keys.findActiveByHash('h3', { acceptCached: true });
    await keys.findActiveByHash('h4', { acceptCached: true });
    await keys.update(b.id, USER, { limits: { perMinute: 1 } });
    expect((await keys.findActiveByHash('h4', { acceptCached: true }))?.limits.perMinute).toBe(1);
    expect(await keys.revoke(a.id, USER)).toBe(true);
    expect(await keys.findActiveByHash('h3', { acceptCached: true })).toBeNull();
    // Another process revoking: the store says revoked, this cache still has the row until its TTL.
    await keys.findActiveByHash('h4', { acceptCached: true });
    await store.revoke(b.id, USER);
    expect((await keys.findActiveByHash('h4', { acceptCached: true }))?.id).toBe(b.id);
    expect(await keys.findActiveByHash('h4')).toBeNull();
    expect(await keys.findActiveByHash('h4', { acceptCached: true })).toBeNull();
  });

  it('does not keep a row read while the key was being forgotten (a lookup racing a revoke)', async () => {
    const { store } = countingStore();
    const cache = new KeyCache({ ttlMs: 60_000 });
    const key = await newKey(store, '00000000-0000-4000-8000-000000000005', 'h5');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The lookup reads the row (still active), then the revoke forgets the key before the lookup returns.
    const lookup = cache.load('h5', async () => {
      const row = await store.findActiveByHash('h5');
      await gate;
      return row;
    });
    cache.forget(key.id);
    release();
    expect((await lookup)?.id).toBe(key.id);
    expect(cache.get('h5')).toBeUndefined();
  });

  it('forgets again once the revoking transaction committed', async () => {
    const { store } = countingStore();
    const cache = new KeyCache({ ttlMs: 60_000 });
    const pending: (() => void)[] = [];
    const inTransaction = new CachedKeyStore(store, cache, (fn) => pending.push(fn));
    const key = await newKey(store, '00000000-0000-4000-8000-000000000006', 'h6');
    await inTransaction.revoke(key.id, USER);
    // Before the commit another request read the row again (it would still see the key active in PostgreSQL).
    await cache.load('h6', async () => key);
    expect(cache.get('h6')).toBeDefined();
    for (const fn of pending) fn();
    expect(cache.get('h6')).toBeUndefined();
  });

  it('keeps a last-used touch on the cached row, so a cached key is not touched on every request', async () => {
    const { store } = countingStore();
    const keys = new CachedKeyStore(store, new KeyCache());
    const key = await newKey(store, '00000000-0000-4000-8000-000000000007', 'h7');
    await keys.findActiveByHash('h7', { acceptCached: true });
    const at = new Date('2026-11-25T12:00:00Z');
    await keys.touchLastUsed(key.id, at);
    expect((await keys.findActiveByHash('h7', { acceptCached: true }))?.lastUsedAt).toEqual(at);
  });

  it('with a TTL of 0 caches nothing', async () => {
    const { store, lookups } = countingStore();
    const keys = new CachedKeyStore(store, new KeyCache({ ttlMs: 0 }));
    await newKey(store, '00000000-0000-4000-8000-000000000008', 'h8');
    await keys.findActiveByHash('h8', { acceptCached: true });
    await keys.findActiveByHash('h8', { acceptCached: true });
    expect(lookups()).toBe(2);
  });
});
