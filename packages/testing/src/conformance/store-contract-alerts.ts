import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type StoreFixtures } from './store-fixtures.js';

export function describeAlertsContract(f: StoreFixtures): void {
  const { stores, newUser } = f;
  describe('alerts', () => {
    it('insert, listForUser and countForUser see only the user’s alerts', async () => {
      const user = await newUser();
      const other = await newUser();
      const a = await stores().alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 5_000_000, armed: true });
      expect(a).toMatchObject({ userId: user.id, thresholdMicro: 5_000_000, armed: true });
      expect(a.createdAt).toBeInstanceOf(Date);
      const b = await stores().alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 1_000_000, armed: false });
      await stores().alerts.insert({ id: randomUUID(), userId: other.id, thresholdMicro: 9_000_000, armed: true });
      const listed = await stores().alerts.listForUser(user.id);
      expect(listed.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
      expect(listed.find((x) => x.id === b.id)).toMatchObject({ thresholdMicro: 1_000_000, armed: false });
      expect(await stores().alerts.countForUser(user.id)).toBe(2);
      expect(await stores().alerts.countForUser(other.id)).toBe(1);
      expect(await stores().alerts.countForUser(randomUUID())).toBe(0);
    });

    it('delete removes only the owner’s alert: another user’s delete is false', async () => {
      const user = await newUser();
      const other = await newUser();
      const a = await stores().alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 2_000_000, armed: true });
      expect(await stores().alerts.delete(a.id, other.id)).toBe(false);
      expect(await stores().alerts.countForUser(user.id)).toBe(1);
      expect(await stores().alerts.delete(a.id, user.id)).toBe(true);
      expect(await stores().alerts.listForUser(user.id)).toEqual([]);
      expect(await stores().alerts.delete(a.id, user.id)).toBe(false);
      expect(await stores().alerts.delete(randomUUID(), user.id)).toBe(false);
    });

    it('setArmed disarms and re-arms an alert', async () => {
      const user = await newUser();
      const a = await stores().alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 3_000_000, armed: true });
      await stores().alerts.setArmed(a.id, false);
      expect((await stores().alerts.listForUser(user.id))[0]).toMatchObject({ id: a.id, armed: false, thresholdMicro: 3_000_000 });
      await stores().alerts.setArmed(a.id, true);
      expect((await stores().alerts.listForUser(user.id))[0]).toMatchObject({ id: a.id, armed: true });
    });
  });
}
