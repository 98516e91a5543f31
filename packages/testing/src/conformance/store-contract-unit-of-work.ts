import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DeliberateFailure, hex, type StoreFixtures } from './store-fixtures.js';

export function describeUnitOfWorkContract(f: StoreFixtures): void {
  const { h, stores, skip, newUser, keyFor, taskFor, holdTask, grant, expectLedgerInvariant } = f;
  describe('unit of work', () => {
    it('run commits its writes and returns the function’s value', async () => {
      const id = randomUUID();
      const taskId = randomUUID();
      const out = await h().uow.run(async (tx) => {
        await tx.users.insert({ id, email: `uow-${hex(4)}@example.com` });
        await tx.ledger.openAccount(id);
        await tx.ledger.record({ userId: id, creditsMicro: 3_000_000, amountMicroUsd: 0, paymentMethod: 'grant', status: 'completed', description: null });
        await tx.ledger.hold(id, taskId, 1_000_000);
        await tx.tasks.insert(taskFor(id, 1_000_000, taskId));
        expect(await tx.ledger.getBalance(id)).toEqual({ balanceMicro: 3_000_000, heldMicro: 1_000_000 });
        return 'committed' as const;
      });
      expect(out).toBe('committed');
      expect((await stores().users.findById(id))?.id).toBe(id);
      expect((await stores().tasks.findById(taskId))?.status).toBe('waiting');
      expect(await stores().ledger.getBalance(id)).toEqual({ balanceMicro: 3_000_000, heldMicro: 1_000_000 });
      await expectLedgerInvariant(id);
    });

    it.skipIf(skip.has('rollback'))('a throw inside run leaves no row and rejects with the thrown error', async () => {
      const id = randomUUID();
      const email = `rollback-${hex(4)}@example.com`;
      const failure = new DeliberateFailure();
      await expect(
        h().uow.run(async (tx) => {
          await tx.users.insert({ id, email });
          await tx.ledger.openAccount(id);
          await tx.keys.insert(keyFor(id));
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await stores().users.findById(id)).toBeNull();
      expect(await stores().users.findByEmail(email)).toBeNull();
      expect(await stores().keys.countActiveForUser(id)).toBe(0);
    });

    it.skipIf(skip.has('rollback'))('a throw after hold and task insert leaves neither the hold nor the task', async () => {
      const user = await newUser();
      await grant(user.id, 1_000_000);
      const taskId = randomUUID();
      await expect(
        h().uow.run(async (tx) => {
          await tx.ledger.hold(user.id, taskId, 1_000_000);
          await tx.tasks.insert(taskFor(user.id, 1_000_000, taskId));
          await tx.alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 1, armed: true });
          throw new DeliberateFailure();
        }),
      ).rejects.toBeInstanceOf(DeliberateFailure);
      expect(await stores().tasks.findById(taskId)).toBeNull();
      expect(await stores().alerts.countForUser(user.id)).toBe(0);
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 1_000_000, heldMicro: 0 });
      expect(await stores().ledger.settle(taskId, 1_000_000, 'ghost')).toBeNull();
      await holdTask(user.id, 1_000_000);
      await expectLedgerInvariant(user.id);
    });
  });
}
