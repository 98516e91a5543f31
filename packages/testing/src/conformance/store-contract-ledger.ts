import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nextMillisecond, hex, type StoreFixtures } from './store-fixtures.js';

export function describeLedgerContract(f: StoreFixtures): void {
  const { h, stores, newUser, taskFor, holdTask, grant, allTransactions, expectLedgerInvariant, usageOf, expectInsufficient } = f;
  describe('ledger', () => {
    it('openAccount starts a user at zero balance and nothing held', async () => {
      const user = await stores().users.insert({ id: randomUUID(), email: `open-${hex(4)}@example.com` });
      await stores().ledger.openAccount(user.id);
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 0, heldMicro: 0 });
      await expectLedgerInvariant(user.id);
    });

    it('record: a completed transaction raises the balance at once, a pending one does not', async () => {
      const user = await newUser();
      const done = await grant(user.id, 5_000_000, 'welcome');
      expect(done).toMatchObject({
        userId: user.id,
        creditsMicro: 5_000_000,
        amountMicroUsd: 0,
        paymentMethod: 'grant',
        status: 'completed',
        taskId: null,
        description: 'welcome',
      });
      expect(done.createdAt).toBeInstanceOf(Date);
      const pending = await stores().ledger.record({
        userId: user.id,
        creditsMicro: 10_000_000,
        amountMicroUsd: 100_000,
        paymentMethod: 'manual',
        status: 'pending',
        description: 'top-up',
        externalRef: `ref-${hex(6)}`,
      });
      expect(pending).toMatchObject({ status: 'pending', creditsMicro: 10_000_000, amountMicroUsd: 100_000, paymentMethod: 'manual' });
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 5_000_000, heldMicro: 0 });
      expect(await stores().ledger.findTransaction(pending.id)).toEqual(pending);
      expect(await stores().ledger.findTransaction(randomUUID())).toBeNull();
      await expectLedgerInvariant(user.id);
    });

    it('complete: pending -> completed exactly once, raising the balance; the second call is null', async () => {
      const user = await newUser();
      await grant(user.id, 1_000_000);
      const pending = await stores().ledger.record({
        userId: user.id,
        creditsMicro: 10_000_000,
        amountMicroUsd: 100_000,
        paymentMethod: 'manual',
        status: 'pending',
        description: 'top-up',
      });
      const completed = await stores().ledger.complete(pending.id);
      expect(completed).toMatchObject({ id: pending.id, status: 'completed', creditsMicro: 10_000_000 });
      expect((await stores().ledger.getBalance(user.id)).balanceMicro).toBe(11_000_000);
      expect((await stores().ledger.findTransaction(pending.id))?.status).toBe('completed');
      await expectLedgerInvariant(user.id);

      expect(await stores().ledger.complete(pending.id)).toBeNull();
      expect((await stores().ledger.getBalance(user.id)).balanceMicro).toBe(11_000_000);
      expect(await stores().ledger.complete(randomUUID())).toBeNull();
      await expectLedgerInvariant(user.id);
    });

    it('hold refuses with insufficient_credits when balance − held < amount, and holds the exact remainder', async () => {
      const user = await newUser();
      await expectInsufficient(holdTask(user.id, 1));
      await grant(user.id, 1_000_000);

      const a = await holdTask(user.id, 600_000);
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 1_000_000, heldMicro: 600_000 });

      const refusedId = randomUUID();
      await expectInsufficient(
        h().uow.run(async (tx) => {
          await tx.ledger.hold(user.id, refusedId, 400_001);
          await tx.tasks.insert(taskFor(user.id, 400_001, refusedId));
        }),
      );
      expect(await stores().tasks.findById(refusedId)).toBeNull();
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 1_000_000, heldMicro: 600_000 });

      const b = await holdTask(user.id, 400_000);
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 1_000_000, heldMicro: 1_000_000 });
      await expectInsufficient(holdTask(user.id, 1));
      expect(a).not.toBe(b);
      expect(await allTransactions(user.id)).toHaveLength(1);
      await expectLedgerInvariant(user.id);
    });

    it('a pending purchase does not make room for a hold', async () => {
      const user = await newUser();
      await stores().ledger.record({
        userId: user.id,
        creditsMicro: 50_000_000,
        amountMicroUsd: 500_000,
        paymentMethod: 'manual',
        status: 'pending',
        description: 'unpaid',
      });
      await expectInsufficient(holdTask(user.id, 1_000_000));
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 0, heldMicro: 0 });
      await expectLedgerInvariant(user.id);
    });

    it('settle charges the charge (below the hold) as ONE completed usage transaction and releases the rest', async () => {
      const user = await newUser();
      await grant(user.id, 10_000_000);
      const taskId = await holdTask(user.id, 3_000_050);
      const other = await holdTask(user.id, 1_000_000);

      const tx = await stores().ledger.settle(taskId, 2_000_050, 'conformance.image generation');
      expect(tx).toMatchObject({
        userId: user.id,
        creditsMicro: -2_000_050,
        amountMicroUsd: 20_001, // 2_000_050 / 100 = 20_000.5, rounded half up
        paymentMethod: 'usage',
        status: 'completed',
        taskId,
        description: 'conformance.image generation',
      });
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 10_000_000 - 2_000_050, heldMicro: 1_000_000 });
      const usage = await usageOf(user.id, taskId);
      expect(usage).toHaveLength(1);
      expect(usage[0]?.id).toBe(tx?.id);
      expect(await stores().ledger.findTransaction(tx?.id ?? '')).toMatchObject({ creditsMicro: -2_000_050, taskId });
      await expectLedgerInvariant(user.id);

      await stores().ledger.release(other);
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 10_000_000 - 2_000_050, heldMicro: 0 });
      await expectLedgerInvariant(user.id);
    });

    it('settle never charges more than the hold', async () => {
      const user = await newUser();
      await grant(user.id, 10_000_000);
      const taskId = await holdTask(user.id, 1_234_567);
      const tx = await stores().ledger.settle(taskId, 9_000_000, 'over quote');
      expect(tx).toMatchObject({ creditsMicro: -1_234_567, amountMicroUsd: 12_346, paymentMethod: 'usage', status: 'completed' });
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 10_000_000 - 1_234_567, heldMicro: 0 });
      await expectLedgerInvariant(user.id);
    });

    it('settle of a zero charge records a zero usage transaction and releases the whole hold', async () => {
      const user = await newUser();
      await grant(user.id, 5_000_000);
      const taskId = await holdTask(user.id, 5_000_000);
      const tx = await stores().ledger.settle(taskId, 0, 'free');
      expect(tx?.paymentMethod).toBe('usage');
      expect(Math.abs(tx?.creditsMicro ?? -1)).toBe(0);
      expect(tx?.amountMicroUsd).toBe(0);
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 5_000_000, heldMicro: 0 });
      await expectLedgerInvariant(user.id);
    });

    it('settle is idempotent: a second settle (or a later release) is null and changes nothing', async () => {
      const user = await newUser();
      await grant(user.id, 4_000_000);
      const taskId = await holdTask(user.id, 3_000_000);
      expect(await stores().ledger.settle(taskId, 2_500_000, 'first')).not.toBeNull();
      const after = await stores().ledger.getBalance(user.id);
      expect(after).toEqual({ balanceMicro: 1_500_000, heldMicro: 0 });

      expect(await stores().ledger.settle(taskId, 2_500_000, 'second')).toBeNull();
      await stores().ledger.release(taskId);
      expect(await stores().ledger.getBalance(user.id)).toEqual(after);
      expect(await usageOf(user.id, taskId)).toHaveLength(1);
      expect(await stores().ledger.settle(randomUUID(), 1, 'no hold')).toBeNull();
      await expectLedgerInvariant(user.id);
    });

    it('release frees the hold without charging; it is idempotent and a later settle is null', async () => {
      const user = await newUser();
      await grant(user.id, 2_000_000);
      const taskId = await holdTask(user.id, 1_500_000);
      await expectInsufficient(holdTask(user.id, 600_000));

      await stores().ledger.release(taskId);
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 2_000_000, heldMicro: 0 });
      await stores().ledger.release(taskId);
      await stores().ledger.release(randomUUID());
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 2_000_000, heldMicro: 0 });
      expect(await stores().ledger.settle(taskId, 1_500_000, 'too late')).toBeNull();
      expect(await usageOf(user.id, taskId)).toEqual([]);
      expect(await allTransactions(user.id)).toHaveLength(1);

      await holdTask(user.id, 2_000_000);
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 2_000_000, heldMicro: 2_000_000 });
      await expectLedgerInvariant(user.id);
    });

    it('listTransactions lists the user’s transactions newest first, with the total and paging', async () => {
      const user = await newUser();
      const other = await newUser();
      await grant(other.id, 1_000_000, 'not yours');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        if (i > 0) await nextMillisecond();
        ids.push((await grant(user.id, (i + 1) * 1_000_000, `t${i}`)).id);
      }
      await nextMillisecond();
      const taskId = await holdTask(user.id, 1_000_000);
      await nextMillisecond();
      const usage = await stores().ledger.settle(taskId, 1_000_000, 'usage');
      const newestFirst = [usage?.id, ...[...ids].reverse()];

      const p1 = await stores().ledger.listTransactions(user.id, 1, 2);
      const p2 = await stores().ledger.listTransactions(user.id, 2, 2);
      const p3 = await stores().ledger.listTransactions(user.id, 3, 2);
      const p4 = await stores().ledger.listTransactions(user.id, 4, 2);
      expect([p1.total, p2.total, p3.total, p4.total]).toEqual([6, 6, 6, 6]);
      expect(p1.items.map((t) => t.id)).toEqual(newestFirst.slice(0, 2));
      expect(p2.items.map((t) => t.id)).toEqual(newestFirst.slice(2, 4));
      expect(p3.items.map((t) => t.id)).toEqual(newestFirst.slice(4, 6));
      expect(p4.items).toEqual([]);
      const whole = await stores().ledger.listTransactions(user.id, 1, 100);
      expect(whole.items.map((t) => t.id)).toEqual(newestFirst);
      expect(whole.items.every((t) => t.userId === user.id)).toBe(true);
      expect(await stores().ledger.listTransactions(randomUUID(), 1, 20)).toEqual({ items: [], total: 0 });
      await expectLedgerInvariant(user.id);
      await expectLedgerInvariant(other.id);
    });

    it('keeps the invariant over a mixed scenario of grants, purchases, holds, settles and releases', async () => {
      const user = await newUser();
      await grant(user.id, 7_000_000);
      await expectLedgerInvariant(user.id);
      const purchase = await stores().ledger.record({
        userId: user.id,
        creditsMicro: 3_000_000,
        amountMicroUsd: 30_000,
        paymentMethod: 'stripe',
        status: 'pending',
        description: 'checkout',
        externalRef: `cs_${hex(8)}`,
      });
      await expectLedgerInvariant(user.id);
      const tasks = [await holdTask(user.id, 2_000_000), await holdTask(user.id, 2_000_000), await holdTask(user.id, 3_000_000)];
      await expectInsufficient(holdTask(user.id, 1));
      await stores().ledger.complete(purchase.id);
      await expectLedgerInvariant(user.id);
      await holdTask(user.id, 3_000_000);
      const [t0, t1, t2] = tasks as [string, string, string];
      await stores().ledger.settle(t0, 1_999_999, 'partial');
      await expectLedgerInvariant(user.id);
      await stores().ledger.release(t1);
      await expectLedgerInvariant(user.id);
      await stores().ledger.settle(t2, 3_000_000, 'full');
      await expectLedgerInvariant(user.id);
      expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 10_000_000 - 1_999_999 - 3_000_000, heldMicro: 3_000_000 });
    });
  });
}
