import { isGatewayError, type UsageReportView } from '@gengate/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MONEY_CONTRACT_SCHEDULING } from '../money/money-contract-suite.js';
import { MoneyDriver } from '../money/money-driver.js';
import type { MoneyContractHarness, MoneyImplementationConfig } from '../money/money-harness.js';
import { CONTRACT_MODEL, contractAdapter, quoteOf } from '../money/money-model.js';

const CREDIT = 1_000_000;
const FIGURES_ZERO = { credits: 0, tasks: 0, failures: 0, input_tokens: 0, output_tokens: 0, images: 0, video_seconds: 0, latency_p50_ms: null, latency_p95_ms: null };

/**
 * The usage contract: GET /usage's figures (the UsageReport use case over the implementation's
 * UsageReader) after tasks are settled through the implementation's own intake and completion ports.
 * Run on every implementation (memory: computed from the rows; PostgreSQL: the rollups of migration 023),
 * with the money contract's harness.
 */
export function describeUsageContract(name: string, factory: () => Promise<MoneyContractHarness>): void {
  describe(`usage contract (rollups at settlement): ${name}`, () => {
    let harness: MoneyContractHarness | null = null;
    let opened: MoneyDriver[] = [];
    beforeAll(async () => {
      harness = await factory();
    });
    afterEach(async () => {
      for (const d of opened) await d.impl.close();
      opened = [];
    });
    afterAll(async () => {
      await harness?.close?.();
    });
    const open = async () => {
      if (!harness) throw new Error('the harness factory did not run');
      const config: MoneyImplementationConfig = { adapters: [contractAdapter()], scheduling: { ...MONEY_CONTRACT_SCHEDULING, maxQueuedPerUser: 10 } };
      const d = new MoneyDriver(await harness.open(config), config);
      opened.push(d);
      return d;
    };
    const usageOf = async (d: MoneyDriver, user: string, query: Record<string, string> = {}): Promise<UsageReportView> =>
      (await d.impl.gengate.usage.forCaller(d.authOf(user), query)).report;

    /** u0: t0 succeeds charged half its 1-image quote with 1 image, t1 succeeds at its 2-image quote, t2 fails; u1: t3 succeeds. */
    const settleSome = async (d: MoneyDriver) => {
      await d.addUser(100);
      await d.addUser(100);
      const run = async (c: Parameters<MoneyDriver['run']>[0], expected: string) => expect(await d.run(c)).toBe(expected);
      await run({ kind: 'submit', user: 0, images: 1, key: null, callback: false }, 'accepted t0');
      await run({ kind: 'submit', user: 0, images: 2, key: null, callback: false }, 'accepted t1');
      await run({ kind: 'submit', user: 0, images: 3, key: null, callback: false }, 'accepted t2');
      await run({ kind: 'submit', user: 1, images: 4, key: null, callback: false }, 'accepted t3');
      await run({ kind: 'start', pick: 0 }, 'generating');
      await run({ kind: 'start', pick: 1 }, 'generating');
      await run({ kind: 'start', pick: 3 }, 'generating');
      await run({ kind: 'succeed', pick: 0, chargePermille: 500 }, 'succeeded');
      await run({ kind: 'succeed', pick: 1, chargePermille: null }, 'succeeded');
      await run({ kind: 'fail', pick: 2 }, 'failed');
      await run({ kind: 'succeed', pick: 3, chargePermille: 1000 }, 'succeeded');
    };

    it('counts each ended task once, with the ledger usage deduction as its credits, failures included', async () => {
      const d = await open();
      await settleSome(d);
      const report = await usageOf(d, 'u0', { group_by: 'model' });
      expect(report.group_by).toEqual(['model']);
      expect(report.data).toHaveLength(1);
      const row = report.data[0];
      expect(row).toMatchObject({ model: CONTRACT_MODEL.id, tasks: 3, failures: 1, images: 1, input_tokens: 0, output_tokens: 0, video_seconds: 0 });
      // Half of a 1-image quote plus a whole 2-image quote; the failure charged nothing.
      expect(row?.credits).toBe((quoteOf(1) / 2 + quoteOf(2)) / CREDIT);
      // The same figure as the ledger: the negative sum of the user's usage transactions.
      const ledger = (await d.impl.readState([d.userId('u0')])).transactions.filter((t) => t.paymentMethod === 'usage');
      expect(row?.credits).toBe(-ledger.reduce((n, t) => n + t.creditsMicro, 0) / CREDIT);
      // Two successes: both percentiles come from their latencies.
      expect(row?.latency_p50_ms).not.toBeNull();
      expect(row?.latency_p95_ms).toBeGreaterThanOrEqual(row?.latency_p50_ms ?? 0);
      const { model: _model, ...figures } = row ?? {};
      expect(report.totals).toEqual(figures);
    });

    it('never shows another user\'s usage, and shows nothing (zero totals) to a user without ended tasks', async () => {
      const d = await open();
      await settleSome(d);
      const u1 = await usageOf(d, 'u1', { group_by: 'key' });
      expect(u1.totals).toMatchObject({ tasks: 1, failures: 0, credits: quoteOf(4) / CREDIT, images: 4 });
      const u0 = await usageOf(d, 'u0', { group_by: 'key' });
      expect(u0.totals.tasks).toBe(3);
      await d.addUser(1);
      const empty = await usageOf(d, 'u2');
      expect(empty.data).toEqual([]);
      expect(empty.totals).toEqual(FIGURES_ZERO);
      // The operator sees both users, one row each, ordered by user id.
      const all = (await d.impl.gengate.usage.forOperator({ group_by: 'user' })).report;
      const mine = all.data.filter((r) => r.user_id === d.userId('u0') || r.user_id === d.userId('u1'));
      expect(mine.map((r) => [r.user_id, r.tasks])).toEqual(
        [[d.userId('u0'), 3], [d.userId('u1'), 1]].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      );
    });

    it('groups by key (with its name), by day and by provider, and filters by model and key', async () => {
      const d = await open();
      await settleSome(d);
      const byKey = await usageOf(d, 'u0', { group_by: 'key' });
      expect(byKey.data).toHaveLength(1);
      const keyId = byKey.data[0]?.key_id;
      expect(keyId).toBe(d.authOf('u0').apiKeyId);
      expect(typeof byKey.data[0]?.key_name).toBe('string');
      const today = new Date().toISOString().slice(0, 10);
      const byDay = await usageOf(d, 'u0', { group_by: 'day,provider' });
      // A settlement a moment before midnight UTC may land on the day before: every row is today or yesterday.
      for (const r of byDay.data) expect([today, new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)]).toContain(r.day);
      expect(byDay.data.every((r) => r.provider === 'contract')).toBe(true);
      expect(byDay.data.reduce((n, r) => n + r.tasks, 0)).toBe(3);
      expect((await usageOf(d, 'u0', { model: 'other.model' })).data).toEqual([]);
      expect((await usageOf(d, 'u0', { key_id: String(keyId) })).totals.tasks).toBe(3);
      expect((await usageOf(d, 'u0', { key_id: '7d7b4c8e-2f7a-4c44-9d7e-6c1f5b0a9e11' })).totals.tasks).toBe(0);
      const hourly = await usageOf(d, 'u0', { group_by: 'hour' });
      for (const r of hourly.data) expect(r.hour).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
    });

    it('counts only the hours asked for: a range in the past holds nothing', async () => {
      const d = await open();
      await settleSome(d);
      const past = await usageOf(d, 'u0', { from: '2020-01-01', to: '2020-01-31' });
      expect(past.from).toBe('2020-01-01T00:00:00.000Z');
      expect(past.to).toBe('2020-01-31T00:00:00.000Z');
      expect(past.data).toEqual([]);
    });

    it('refuses a bad query with 400 naming the parameter', async () => {
      const d = await open();
      await d.addUser(1);
      const refusal = async (query: Record<string, string>) => {
        try {
          await usageOf(d, 'u0', query);
        } catch (err) {
          if (isGatewayError(err)) return [err.status, err.type, err.param];
          throw err;
        }
        return 'answered';
      };
      expect(await refusal({ group_by: 'week' })).toEqual([400, 'invalid_request', 'group_by']);
      expect(await refusal({ member: 'someone' })).toEqual([400, 'invalid_request', 'member']);
      expect(await refusal({ group_by: 'day,hour' })).toEqual([400, 'invalid_request', 'group_by']);
      expect(await refusal({ group_by: 'day,model,key' })).toEqual([400, 'invalid_request', 'group_by']);
      expect(await refusal({ from: 'yesterday' })).toEqual([400, 'invalid_request', 'from']);
      expect(await refusal({ from: '2026-02-01', to: '2026-01-01' })).toEqual([400, 'invalid_request', 'to']);
      expect(await refusal({ from: '2024-01-01', to: '2026-01-01' })).toEqual([400, 'invalid_request', 'from']);
      expect(await refusal({ key_id: 'nope' })).toEqual([400, 'invalid_request', 'key_id']);
      expect(await refusal({ user_id: '7d7b4c8e-2f7a-4c44-9d7e-6c1f5b0a9e11' })).toEqual([400, 'invalid_request', 'user_id']);
      expect(await refusal({ colour: 'red' })).toEqual([400, 'invalid_request', 'colour']);
    });
  });
}
