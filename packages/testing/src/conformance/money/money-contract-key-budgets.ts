import { expect, it } from 'vitest';
import type { MoneyDriver } from './money-driver.js';
import type { MoneyImplementationConfig } from './money-harness.js';
import { quoteOf } from './money-model.js';

type Open = (scheduling?: Partial<MoneyImplementationConfig['scheduling']>) => Promise<MoneyDriver>;

const submit = { kind: 'submit', user: 0, images: 1, key: null, callback: false } as const;

/**
 * The per-key spend controls of issue 22, by example (called inside describeMoneyContract, whose `open`
 * gives each driver a MoneyClock at 2026-11-26T10:00Z, a Thursday): the spend limit per UTC period
 * (held + charged of the period's submissions), its reset, the concurrency cap, the allow-lists and the
 * soft-threshold mail once per period. A refusal writes nothing.
 */
export function describeKeyBudgetContract(open: Open): void {
  it("refuses what would pass the key's spend limit (held + charged), and accepts again in the next period", async () => {
    const d = await open();
    const u = await d.addUser(100);
    expect(await d.run({ kind: 'budget', user: 0, limitCredits: 6, period: 'day', maxConcurrent: null, softPercent: null })).toBe('budget 6 per day, spent 0');
    for (const expected of ['accepted t0', 'accepted t1', 'accepted t2']) expect(await d.run(submit)).toBe(expected);
    expect(await d.run(submit)).toBe('error key_budget_exceeded');
    expect((await d.state())[u]?.keys).toEqual([
      { spendLimit: 6, budgetPeriod: 'day', spent: 6, remaining: 0, resetsAt: '2026-11-27T00:00:00.000Z', concurrentTasks: 3 },
    ]);
    // A charge below the hold frees the difference: 5 spent, but another 2 still do not fit.
    await d.run({ kind: 'start', pick: 0 });
    expect(await d.run({ kind: 'succeed', pick: 0, chargePermille: 500 })).toBe('succeeded');
    expect((await d.state())[u]?.keys[0]).toMatchObject({ spent: 5, remaining: 1, concurrentTasks: 2 });
    expect(await d.run(submit)).toBe('error key_budget_exceeded');
    expect((await d.state())[u]?.tasks).toHaveLength(3);
    // Midnight UTC: a new period; the holds of the last one do not count in it.
    await d.run({ kind: 'advance', hours: 14 });
    expect(await d.run(submit)).toBe('accepted t3');
    expect((await d.state())[u]?.keys[0]).toMatchObject({ spent: 2, remaining: 4, resetsAt: '2026-11-28T00:00:00.000Z' });
    // The user's balance is untouched by the key's accounting: 100 - 1 charged, 3 tasks held.
    expect((await d.state())[u]).toMatchObject({ balanceMicro: 100_000_000 - quoteOf(1) / 2, heldMicro: 3 * quoteOf(1) });
  });

  it('counts a budget of period none for the key’s whole life', async () => {
    const d = await open();
    const u = await d.addUser(100);
    await d.run({ kind: 'budget', user: 0, limitCredits: 4, period: 'none', maxConcurrent: null, softPercent: null });
    expect(await d.run({ ...submit, images: 2 })).toBe('accepted t0');
    await d.run({ kind: 'advance', hours: 24 * 40 });
    expect(await d.run(submit)).toBe('error key_budget_exceeded');
    expect((await d.state())[u]?.keys[0]).toMatchObject({ spent: 4, remaining: 0, resetsAt: null });
  });

  it("refuses past the key's concurrency cap until one of its tasks ends", async () => {
    const d = await open();
    const u = await d.addUser(100);
    await d.run({ kind: 'budget', user: 0, limitCredits: null, period: 'none', maxConcurrent: 1, softPercent: null });
    expect(await d.run(submit)).toBe('accepted t0');
    expect(await d.run(submit)).toBe('error key_concurrency_exceeded');
    expect((await d.state())[u]).toMatchObject({ heldMicro: quoteOf(1) });
    expect(await d.run({ kind: 'fail', pick: 0 })).toBe('failed');
    expect(await d.run(submit)).toBe('accepted t1');
  });

  it("refuses a model outside the key's allowed models: no task, no hold", async () => {
    const d = await open();
    const u = await d.addUser(100);
    expect(await d.run({ kind: 'allow', user: 0, models: 'other' })).toBe('allowed contract.other');
    expect(await d.run(submit)).toBe('error model_not_allowed_for_key');
    expect((await d.state())[u]).toMatchObject({ heldMicro: 0, tasks: [], holds: [], jobs: [] });
    await d.run({ kind: 'allow', user: 0, models: 'contract' });
    expect(await d.run(submit)).toBe('accepted t0');
  });

  it('enqueues one soft-threshold mail per key and period', async () => {
    const d = await open({ maxQueuedPerUser: 5 });
    const u = await d.addUser(100);
    await d.run({ kind: 'budget', user: 0, limitCredits: 10, period: 'day', maxConcurrent: null, softPercent: 50 });
    await d.run({ ...submit, images: 2 }); // 4 of 10
    expect((await d.state())[u]?.jobs).not.toContain('key-budget-mail');
    await d.run(submit); // 6: past 5
    await d.run({ kind: 'fail', pick: 0 }); // 2 again, but the period's mail was sent
    await d.run(submit); // 4
    await d.run({ ...submit, images: 2 }); // 8
    expect((await d.state())[u]?.jobs.filter((j) => j === 'key-budget-mail')).toHaveLength(1);
    await d.run({ kind: 'advance', hours: 24 });
    expect(await d.run({ ...submit, images: 3 })).toBe('accepted t4'); // 6 in the new period
    expect((await d.state())[u]?.jobs.filter((j) => j === 'key-budget-mail')).toHaveLength(2);
  });
}
