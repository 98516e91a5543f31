import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeKeyBudgetContract } from './money-contract-key-budgets.js';
import { describeMemberBudgetContract } from './money-contract-member-budgets.js';
import { MoneyDriver } from './money-driver.js';
import { MoneyClock, type MoneyContractHarness, type MoneyImplementationConfig } from './money-harness.js';
import { contractAdapter, quoteOf } from './money-model.js';
import { ledgerViolations } from './money-state.js';

/** Two running image slots and one queued place per user, three attempts: small enough to reach every limit. */
export const MONEY_CONTRACT_SCHEDULING: MoneyImplementationConfig['scheduling'] = {
  maxRunningPerUser: { chat: 2, image: 2, video: 2 },
  maxQueuedPerUser: 1,
  maxAttempts: 3,
};

const CREDIT = 1_000_000;

/**
 * The intake and completion contract: every rule that moves money, by example, against one
 * implementation (`factory` is called once; each test opens its own use cases and makes its own users).
 * After every test the ledger invariant must hold for its users. How to run it: docs/architecture.md,
 * "Checking a server or a store with the conformance kit".
 */
export function describeMoneyContract(name: string, factory: () => Promise<MoneyContractHarness>): void {
  describe(`money contract (intake and completion): ${name}`, () => {
    let harness: MoneyContractHarness | null = null;
    let opened: MoneyDriver[] = [];

    beforeAll(async () => {
      harness = await factory();
    });
    afterEach(async () => {
      for (const d of opened) {
        expect(ledgerViolations(await d.state())).toEqual([]);
        await d.impl.close();
      }
      opened = [];
    });
    afterAll(async () => {
      await harness?.close?.();
    });

    const open = async (scheduling: Partial<MoneyImplementationConfig['scheduling']> = {}) => {
      if (!harness) throw new Error('the money harness factory did not run');
      const config = { adapters: [contractAdapter()], scheduling: { ...MONEY_CONTRACT_SCHEDULING, ...scheduling }, clock: new MoneyClock() };
      const d = new MoneyDriver(await harness.open(config), config);
      opened.push(d);
      return d;
    };

    describe('intake', () => {
      it('answers a resubmission with the same Idempotency-Key within 24 hours from the first, and creates nothing', async () => {
        const d = await open();
        const u = await d.addUser(100);
        expect(await d.run({ kind: 'submit', user: 0, images: 1, key: 'k1', callback: false })).toBe('accepted t0');
        expect(await d.run({ kind: 'resubmit', pick: 0, sameBody: true })).toBe('replay t0');
        expect(await d.run({ kind: 'resubmit', pick: 0, sameBody: false })).toBe('error conflict');
        const s = (await d.state())[u];
        expect(s?.tasks).toHaveLength(1);
        expect(s?.holds).toEqual([{ task: 't0', amountMicro: quoteOf(1), state: 'held' }]);
        if (d.impl.ageIdempotencyKeys) {
          // Past 24 hours the key is free again: a new task.
          await d.impl.ageIdempotencyKeys(d.userId(u), 25);
          expect(await d.run({ kind: 'resubmit', pick: 0, sameBody: true })).toBe('accepted t1');
        }
      });

      it('lets exactly one of two concurrent submissions with one Idempotency-Key create the task; both answer it', async () => {
        const d = await open();
        const u = await d.addUser(100);
        const both = await Promise.all([0, 1].map(() => d.run({ kind: 'submit', user: 0, images: 1, key: 'race', callback: false })));
        expect([...both].sort()).toEqual(['accepted t0', 'replay t0']);
        expect((await d.state())[u]?.tasks).toHaveLength(1);
      });

      it('refuses a submission the available balance cannot cover: no task, no hold, no charge', async () => {
        const d = await open();
        const u = await d.addUser(3);
        expect(await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false })).toBe('accepted t0');
        // 3 credits, 2 held: 1 available, another image costs 2.
        expect(await d.run({ kind: 'submit', user: 0, images: 1, key: 'k', callback: false })).toBe('error insufficient_credits');
        const s = (await d.state())[u];
        expect(s).toMatchObject({ balanceMicro: 3 * CREDIT, heldMicro: quoteOf(1) });
        expect(s?.tasks).toHaveLength(1);
        expect(s?.transactions.filter((t) => t.paymentMethod === 'usage')).toEqual([]);
        // The refused key was not remembered: with credits it is accepted.
        await d.run({ kind: 'topup', user: 0, usd: 1, complete: true });
        expect(await d.run({ kind: 'submit', user: 0, images: 1, key: 'k', callback: false })).toBe('accepted t1');
      });

      it("refuses a revoked key's submission, and the revocation ends its waiting tasks with their holds released", async () => {
        const d = await open();
        const u = await d.addUser(100);
        await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false });
        await d.run({ kind: 'start', pick: 0 });
        await d.run({ kind: 'submit', user: 0, images: 2, key: null, callback: false });
        expect(await d.run({ kind: 'revoke', user: 0, reissue: false })).toBe('revoked, failed [t1]');
        expect(await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false })).toBe('error authentication_failed');
        const s = (await d.state())[u];
        expect(s?.tasks.map((t) => [t.task, t.status])).toEqual([
          ['t0', 'generating'],
          ['t1', 'fail'],
        ]);
        expect(s?.heldMicro).toBe(quoteOf(1));
        expect(await d.run({ kind: 'revoke', user: 0, reissue: true })).toBe('error api_key_not_found');
      });

      it('refuses a revoked key before looking at the balance (authentication, not insufficient credits)', async () => {
        const d = await open();
        const u = await d.addUser(0);
        await d.run({ kind: 'revoke', user: 0, reissue: false });
        expect(await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false })).toBe('error authentication_failed');
        expect((await d.state())[u]?.tasks).toEqual([]);
      });

      it('accepts submissions with a key issued after a revocation', async () => {
        const d = await open();
        await d.addUser(100);
        expect(await d.run({ kind: 'revoke', user: 0, reissue: true })).toBe('revoked, failed []');
        expect(await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false })).toBe('accepted t0');
      });

      it('admits into free running slots with a generation job, queues behind them without one, refuses past the queue', async () => {
        const d = await open();
        const u = await d.addUser(100);
        for (const expected of ['accepted t0', 'accepted t1', 'accepted t2']) expect(await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false })).toBe(expected);
        expect(await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false })).toBe('error too_many_tasks');
        const s = (await d.state())[u];
        expect(s?.tasks.map((t) => [t.task, t.admitted])).toEqual([
          ['t0', true],
          ['t1', true],
          ['t2', false],
        ]);
        expect(s?.jobs).toEqual(['generate:t0', 'generate:t1']);
        expect(s?.heldMicro).toBe(3 * quoteOf(1));
      });
    });

    describe('completion', () => {
      const generating = async (images: number, credits = 100, options: { callback?: boolean } = {}) => {
        const d = await open();
        const u = await d.addUser(credits);
        expect(await d.run({ kind: 'submit', user: 0, images, key: null, callback: options.callback ?? false })).toBe('accepted t0');
        expect(await d.run({ kind: 'start', pick: 0 })).toBe('generating');
        return { d, u };
      };
      const usage = async (d: MoneyDriver, u: string) => (await d.state())[u]?.transactions.filter((t) => t.paymentMethod === 'usage').map((t) => t.creditsMicro);

      it('charges the quote on a success without usage and settles the hold', async () => {
        const { d, u } = await generating(2, 100, { callback: true });
        expect(await d.run({ kind: 'succeed', pick: 0, chargePermille: null })).toBe('succeeded');
        const s = (await d.state())[u];
        expect(s).toMatchObject({ balanceMicro: 100 * CREDIT - quoteOf(2), heldMicro: 0, holds: [{ task: 't0', amountMicro: quoteOf(2), state: 'settled' }] });
        expect(s?.tasks[0]).toMatchObject({ status: 'success', chargedMicro: quoteOf(2) });
        expect(s?.jobs).toEqual(['callback:t0']);
      });

      it('charges what the usage prices below the hold and releases the rest', async () => {
        const { d, u } = await generating(2);
        await d.run({ kind: 'succeed', pick: 0, chargePermille: 600 });
        expect(await usage(d, u)).toEqual([-0.6 * quoteOf(2)]);
        expect((await d.state())[u]).toMatchObject({ balanceMicro: 100 * CREDIT - 0.6 * quoteOf(2), heldMicro: 0 });
      });

      it('never charges above the hold', async () => {
        const { d, u } = await generating(1);
        await d.run({ kind: 'succeed', pick: 0, chargePermille: 1500 });
        expect(await usage(d, u)).toEqual([-quoteOf(1)]);
        expect((await d.state())[u]).toMatchObject({ balanceMicro: 100 * CREDIT - quoteOf(1), heldMicro: 0 });
      });

      it('releases the hold of a failed task and charges nothing; a later success writes nothing', async () => {
        const { d, u } = await generating(1);
        expect(await d.run({ kind: 'fail', pick: 0 })).toBe('failed');
        expect(await d.run({ kind: 'succeed', pick: 0, chargePermille: null })).toBe('already ended');
        const s = (await d.state())[u];
        expect(s).toMatchObject({ balanceMicro: 100 * CREDIT, heldMicro: 0, holds: [{ task: 't0', state: 'released' }] });
        expect(await usage(d, u)).toEqual([]);
      });

      it('releases the hold of a cancelled task; cancelling again is a conflict', async () => {
        const { d, u } = await generating(1);
        expect(await d.run({ kind: 'cancel', pick: 0 })).toBe('cancelled fail');
        expect(await d.run({ kind: 'cancel', pick: 0 })).toBe('error conflict');
        expect((await d.state())[u]).toMatchObject({ balanceMicro: 100 * CREDIT, heldMicro: 0, holds: [{ task: 't0', state: 'released' }] });
      });

      it('keeps the hold through retried attempts and fails the task, hold released, when they are used up', async () => {
        const { d, u } = await generating(1);
        expect(await d.run({ kind: 'retry', pick: 0 })).toBe('attempt 2');
        expect(await d.run({ kind: 'retry', pick: 0 })).toBe('attempt 3');
        expect((await d.state())[u]).toMatchObject({ heldMicro: quoteOf(1), tasks: [{ status: 'generating', attempts: 3 }] });
        expect(await d.run({ kind: 'retry', pick: 0 })).toBe('failed');
        expect((await d.state())[u]).toMatchObject({ heldMicro: 0, tasks: [{ status: 'fail', attempts: 3 }] });
      });

      for (const end of ['succeed', 'fail'] as const) {
        it(`admits the next queued task, with its job, when a running one ends (${end})`, async () => {
          const d = await open({ maxRunningPerUser: { chat: 1, image: 1, video: 1 } });
          const u = await d.addUser(100);
          await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false });
          await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false });
          await d.run({ kind: 'start', pick: 0 });
          expect((await d.state())[u]?.tasks.map((t) => t.admitted)).toEqual([true, false]);
          await d.run(end === 'succeed' ? { kind: 'succeed', pick: 0, chargePermille: null } : { kind: 'fail', pick: 0 });
          const s = (await d.state())[u];
          expect(s?.tasks.map((t) => [t.task, t.admitted])).toEqual([
            ['t0', null],
            ['t1', true],
          ]);
          expect(s?.jobs).toEqual(['generate:t1']);
        });
      }
    });

    describe('top-ups and balance alerts', () => {
      it('credits a top-up once, when its purchase completes', async () => {
        const d = await open();
        const u = await d.addUser(0);
        expect(await d.run({ kind: 'topup', user: 0, usd: 2, complete: false })).toBe('pending 200');
        expect((await d.state())[u]?.balanceMicro).toBe(0);
        expect(await d.run({ kind: 'topup', user: 0, usd: 1.5, complete: true })).toBe('completed 150');
        const s = (await d.state())[u];
        expect(s?.balanceMicro).toBe(150 * CREDIT);
        expect(s?.transactions.map((t) => [t.creditsMicro, t.status])).toEqual([
          [150 * CREDIT, 'completed'],
          [200 * CREDIT, 'pending'],
        ]);
      });

      it('disarms an alert when a charge crosses its threshold with ONE mail job, and re-arms it when a top-up crosses back', async () => {
        const d = await open();
        const u = await d.addUser(10);
        expect(await d.run({ kind: 'alert', user: 0, thresholdCredits: 9 })).toBe('alert armed');
        expect(await d.run({ kind: 'alert', user: 0, thresholdCredits: 50 })).toBe('alert disarmed');
        const mails = async () => (await d.state())[u]?.jobs.filter((j) => j === 'alert-mail').length;
        for (const [i, expected] of [[0, 1], [1, 1]] as const) {
          await d.run({ kind: 'submit', user: 0, images: 1, key: null, callback: false });
          await d.run({ kind: 'start', pick: i });
          // A hold alone does not cross: only the charge does.
          expect(await mails()).toBe(i);
          await d.run({ kind: 'succeed', pick: i, chargePermille: null });
          expect(await mails()).toBe(expected);
        }
        expect((await d.state())[u]?.alerts).toEqual([
          { thresholdMicro: 9 * CREDIT, armed: false },
          { thresholdMicro: 50 * CREDIT, armed: false },
        ]);
        await d.run({ kind: 'topup', user: 0, usd: 1, complete: true }); // 6 -> 106 credits
        expect((await d.state())[u]?.alerts).toEqual([
          { thresholdMicro: 9 * CREDIT, armed: true },
          { thresholdMicro: 50 * CREDIT, armed: true },
        ]);
        expect(await mails()).toBe(1);
      });
    });

    describe('key budgets', () => describeKeyBudgetContract(open));
    describe('member spend limits', () => describeMemberBudgetContract(open));
  });
}
