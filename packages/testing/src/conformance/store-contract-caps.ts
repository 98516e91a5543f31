import { randomUUID } from 'node:crypto';
import { isGatewayError, type CreditEntry } from '@gengate/core';
import { USER_CAPS } from '@gengate/core/internal';
import { describe, expect, it } from 'vitest';
import { type StoreFixtures } from './store-fixtures.js';

/** Rejects with the gateway's limit_exceeded error. */
async function expectCap(p: Promise<unknown>): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isGatewayError(err) && err.type === 'limit_exceeded', String(err)).toBe(true);
}

/** Settled outcomes of parallel calls: how many succeeded, and that every failure is limit_exceeded. */
async function fulfilled(calls: Promise<unknown>[]): Promise<number> {
  const results = await Promise.allSettled(calls);
  for (const r of results) if (r.status === 'rejected') expect(isGatewayError(r.reason) && r.reason.type === 'limit_exceeded', String(r.reason)).toBe(true);
  return results.filter((r) => r.status === 'fulfilled').length;
}

export function describeCapsContract(f: StoreFixtures): void {
  const { stores, newUser, keyFor } = f;
  const pendingTopup = (userId: string): CreditEntry => ({
    userId,
    creditsMicro: 1_000_000,
    amountMicroUsd: 10_000,
    paymentMethod: 'manual',
    status: 'pending',
    description: 'conformance top-up',
  });

  describe('per-user caps', () => {
    it(`keys.insert refuses the key after ${USER_CAPS.api_keys} active ones with limit_exceeded; a revoke makes room`, async () => {
      const user = await newUser();
      const inserted = await fulfilled(Array.from({ length: USER_CAPS.api_keys + 10 }, () => stores().keys.insert(keyFor(user.id))));
      expect(inserted).toBe(USER_CAPS.api_keys);
      expect(await stores().keys.countActiveForUser(user.id)).toBe(USER_CAPS.api_keys);
      await expectCap(stores().keys.insert(keyFor(user.id)));
      const [first] = await stores().keys.listActiveForUser(user.id);
      expect(await stores().keys.revoke(first?.id ?? '', user.id)).toBe(true);
      await stores().keys.insert(keyFor(user.id));
      expect(await stores().keys.countActiveForUser(user.id)).toBe(USER_CAPS.api_keys);
      // Another user is not affected.
      await stores().keys.insert(keyFor((await newUser()).id));
    });

    it(`alerts.insert refuses the alert after ${USER_CAPS.balance_alerts} with limit_exceeded, also inside a unit of work`, async () => {
      const user = await newUser();
      const insert = () => stores().alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 1_000_000, armed: true });
      expect(await fulfilled(Array.from({ length: USER_CAPS.balance_alerts + 5 }, insert))).toBe(USER_CAPS.balance_alerts);
      await expectCap(f.h().uow.run((tx) => tx.alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 2_000_000, armed: true })));
      expect(await stores().alerts.countForUser(user.id)).toBe(USER_CAPS.balance_alerts);
    });

    it(`ledger.record refuses a pending purchase after ${USER_CAPS.pending_topups}; completed or failed ones make room, grants are never capped`, async () => {
      const user = await newUser();
      const created = await Promise.allSettled(Array.from({ length: USER_CAPS.pending_topups + 5 }, () => stores().ledger.record(pendingTopup(user.id))));
      const ok = created.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      expect(ok).toHaveLength(USER_CAPS.pending_topups);
      await expectCap(stores().ledger.record(pendingTopup(user.id)));
      await stores().ledger.record({ ...pendingTopup(user.id), paymentMethod: 'grant', status: 'completed' });

      expect(await stores().ledger.fail(ok[0]?.id ?? '')).toMatchObject({ status: 'failed' });
      expect(await stores().ledger.fail(ok[0]?.id ?? '')).toBeNull();
      await stores().ledger.record(pendingTopup(user.id));
      await expectCap(stores().ledger.record(pendingTopup(user.id)));
      expect(await stores().ledger.complete(ok[1]?.id ?? '')).toMatchObject({ status: 'completed' });
      await stores().ledger.record(pendingTopup(user.id));

      // An expired (failed) purchase that the processor reports paid after all is completed once.
      const before = (await stores().ledger.getBalance(user.id)).balanceMicro;
      expect(await stores().ledger.complete(ok[0]?.id ?? '')).toMatchObject({ status: 'completed' });
      expect(await stores().ledger.complete(ok[0]?.id ?? '')).toBeNull();
      expect((await stores().ledger.getBalance(user.id)).balanceMicro).toBe(before + 1_000_000);
      await f.expectLedgerInvariant(user.id);
    });
  });
}
