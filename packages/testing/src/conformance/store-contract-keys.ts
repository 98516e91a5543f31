import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nextMillisecond, hex, type StoreFixtures } from './store-fixtures.js';

export function describeKeysContract(f: StoreFixtures): void {
  const { stores, newUser, keyFor } = f;
  describe('keys', () => {
    it('insert returns an active, never-used key that findActiveByHash and findActiveForUser find', async () => {
      const user = await newUser();
      const other = await newUser();
      const input = keyFor(user.id, {
        name: 'ci',
        limits: { perMinute: 10, perHour: null, perDay: 1000 },
        ipWhitelist: ['10.0.0.0/8', '2001:db8::1'],
      });
      const key = await stores().keys.insert(input);
      expect(key).toMatchObject({ ...input, lastUsedAt: null, revokedAt: null });
      expect(key.createdAt).toBeInstanceOf(Date);
      expect(await stores().keys.findActiveByHash(input.secretHash)).toEqual(key);
      expect(await stores().keys.findActiveForUser(key.id, user.id)).toEqual(key);
      expect(await stores().keys.findActiveForUser(key.id, other.id)).toBeNull();
      expect(await stores().keys.findActiveByHash(hex(32))).toBeNull();
    });

    it('revoke makes the key unfindable, uncounted and unlisted; only once, and only by its owner', async () => {
      const user = await newUser();
      const other = await newUser();
      const a = await stores().keys.insert(keyFor(user.id));
      const b = await stores().keys.insert(keyFor(user.id));
      expect(await stores().keys.countActiveForUser(user.id)).toBe(2);

      expect(await stores().keys.revoke(a.id, other.id)).toBe(false);
      expect(await stores().keys.findActiveByHash(a.secretHash)).not.toBeNull();

      expect(await stores().keys.revoke(a.id, user.id)).toBe(true);
      expect(await stores().keys.findActiveByHash(a.secretHash)).toBeNull();
      expect(await stores().keys.findActiveForUser(a.id, user.id)).toBeNull();
      expect((await stores().keys.listActiveForUser(user.id)).map((k) => k.id)).toEqual([b.id]);
      expect(await stores().keys.countActiveForUser(user.id)).toBe(1);
      expect(await stores().keys.revoke(a.id, user.id)).toBe(false);
      expect(await stores().keys.revoke(randomUUID(), user.id)).toBe(false);
      expect(await stores().keys.update(a.id, user.id, { name: 'revived?' })).toBeNull();
    });

    it('listActiveForUser returns only that user’s keys, newest first; countActiveForUser counts them', async () => {
      const user = await newUser();
      const other = await newUser();
      await stores().keys.insert(keyFor(other.id));
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        if (i > 0) await nextMillisecond();
        ids.push((await stores().keys.insert(keyFor(user.id, { name: `key ${i}` }))).id);
      }
      const listed = await stores().keys.listActiveForUser(user.id);
      expect(listed.map((k) => k.id)).toEqual([...ids].reverse());
      expect(listed.every((k) => k.userId === user.id)).toBe(true);
      expect(await stores().keys.countActiveForUser(user.id)).toBe(3);
      expect(await stores().keys.countActiveForUser(randomUUID())).toBe(0);
      expect(await stores().keys.listActiveForUser(randomUUID())).toEqual([]);
    });

    it('update changes the name, merges limits (null removes one) and replaces the IP whitelist', async () => {
      const user = await newUser();
      const key = await stores().keys.insert(
        keyFor(user.id, { name: 'before', limits: { perMinute: 5, perHour: 50, perDay: 500 }, ipWhitelist: ['192.0.2.1'] }),
      );

      const renamed = await stores().keys.update(key.id, user.id, { name: 'after' });
      expect(renamed).toMatchObject({ name: 'after', limits: { perMinute: 5, perHour: 50, perDay: 500 }, ipWhitelist: ['192.0.2.1'] });

      const limited = await stores().keys.update(key.id, user.id, { limits: { perMinute: null, perDay: 900 } });
      expect(limited?.limits).toEqual({ perMinute: null, perHour: 50, perDay: 900 });
      expect(limited?.name).toBe('after');

      const listed = await stores().keys.update(key.id, user.id, { ipWhitelist: ['198.51.100.0/24', '::1'] });
      expect(listed?.ipWhitelist).toEqual(['198.51.100.0/24', '::1']);
      const cleared = await stores().keys.update(key.id, user.id, { ipWhitelist: [] });
      expect(cleared?.ipWhitelist).toEqual([]);

      const unchanged = await stores().keys.update(key.id, user.id, {});
      expect(unchanged).toMatchObject({ id: key.id, name: 'after', limits: { perMinute: null, perHour: 50, perDay: 900 } });

      const stored = await stores().keys.findActiveForUser(key.id, user.id);
      expect(stored).toMatchObject({ name: 'after', limits: { perMinute: null, perHour: 50, perDay: 900 }, ipWhitelist: [] });
      expect(stored?.secretHash).toBe(key.secretHash);
      expect(stored?.createdAt.getTime()).toBe(key.createdAt.getTime());
    });

    it('update of another user’s key, or of an unknown id, is null and changes nothing', async () => {
      const owner = await newUser();
      const intruder = await newUser();
      const key = await stores().keys.insert(keyFor(owner.id, { name: 'mine' }));
      expect(await stores().keys.update(key.id, intruder.id, { name: 'stolen', ipWhitelist: ['203.0.113.9'] })).toBeNull();
      expect(await stores().keys.update(randomUUID(), owner.id, { name: 'ghost' })).toBeNull();
      expect(await stores().keys.findActiveForUser(key.id, owner.id)).toMatchObject({ name: 'mine', ipWhitelist: [] });
    });

    it('touchLastUsed records the time of use', async () => {
      const user = await newUser();
      const key = await stores().keys.insert(keyFor(user.id));
      const at = new Date(Date.now() + 5_000);
      await stores().keys.touchLastUsed(key.id, at);
      expect((await stores().keys.findActiveByHash(key.secretHash))?.lastUsedAt?.getTime()).toBe(at.getTime());
      const later = new Date(at.getTime() + 61_000);
      await stores().keys.touchLastUsed(key.id, later);
      expect((await stores().keys.findActiveForUser(key.id, user.id))?.lastUsedAt?.getTime()).toBe(later.getTime());
    });
  });
}
