import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../api/types';
import { keyBudgetBars, resetWords } from './key-budgets';

const key = (over: Partial<ApiKey>): ApiKey => ({
  id: over.name ?? 'k',
  name: 'k',
  key: 'gg_live_…',
  member_id: 'u1',
  rate_limit_per_minute: null,
  rate_limit_per_hour: null,
  rate_limit_per_day: null,
  ip_whitelist: [],
  spend_limit: null,
  budget_period: 'none',
  soft_threshold_percent: null,
  allowed_models: null,
  allowed_providers: null,
  allowed_modalities: null,
  max_concurrent_tasks: null,
  spent: 0,
  remaining: null,
  resets_at: null,
  concurrent_tasks: 0,
  created_at: '2026-11-26T00:00:00Z',
  last_used_at: null,
  ...over,
});

describe('budget bars per key', () => {
  it('spent against the limit, the fullest first; keys without a limit named apart', () => {
    const { bars, unlimited } = keyBudgetBars([
      key({ name: 'backend', spend_limit: 10, spent: 6.02, budget_period: 'day', resets_at: '2026-11-27T00:00:00.000Z' }),
      key({ name: 'batch', spend_limit: 50, spent: 49.5, budget_period: 'month', resets_at: '2026-12-01T00:00:00.000Z' }),
      key({ name: 'free', spend_limit: null, spent: 3 }),
      key({ name: 'fresh' }),
    ]);
    expect(bars.map((b) => [b.name, b.percent])).toEqual([
      ['batch', 99],
      ['backend', 60],
    ]);
    expect(bars[1]).toMatchObject({ limit: 10, spent: 6.02, remaining: 3.98, period: 'day' });
    expect(unlimited).toEqual(['free', 'fresh']);
  });

  it('a bar never runs past its limit, and 100 % only when all is spent', () => {
    const { bars } = keyBudgetBars([key({ name: 'over', spend_limit: 1, spent: 1.5 }), key({ name: 'nearly', spend_limit: 3, spent: 2.999999 })]);
    expect(bars.find((b) => b.name === 'over')).toMatchObject({ spent: 1, remaining: 0, percent: 100 });
    expect(bars.find((b) => b.name === 'nearly')?.percent).toBe(99);
  });

  it('says when the budget starts again, in UTC', () => {
    expect(resetWords('2026-11-27T00:00:00.000Z')).toBe('resets Nov 27, 00:00 UTC');
    expect(resetWords(null)).toBe('never resets');
  });
});
