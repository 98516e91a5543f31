import { describe, expect, it } from 'vitest';
import { budgetPeriodStart, budgetResetsAt } from './key-budget-period.js';

const at = (iso: string) => new Date(iso);

describe('budget periods (UTC boundaries)', () => {
  it('a day starts at 00:00 UTC and resets at the next midnight', () => {
    expect(budgetPeriodStart('day', at('2026-11-26T23:59:59.999Z')).toISOString()).toBe('2026-11-26T00:00:00.000Z');
    expect(budgetResetsAt('day', at('2026-11-26T00:00:00.000Z'))?.toISOString()).toBe('2026-11-27T00:00:00.000Z');
  });

  it('a week starts on Monday 00:00 UTC (a Sunday belongs to the week before)', () => {
    // 2026-11-23 is a Monday, 2026-11-29 a Sunday.
    expect(budgetPeriodStart('week', at('2026-11-23T00:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(budgetPeriodStart('week', at('2026-11-29T23:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(budgetResetsAt('week', at('2026-11-29T23:00:00Z'))?.toISOString()).toBe('2026-11-30T00:00:00.000Z');
    // Across a year end.
    expect(budgetPeriodStart('week', at('2027-01-01T12:00:00Z')).toISOString()).toBe('2026-12-28T00:00:00.000Z');
  });

  it('a month starts on the 1st 00:00 UTC; December resets into January', () => {
    expect(budgetPeriodStart('month', at('2026-02-28T10:00:00Z')).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(budgetResetsAt('month', at('2026-12-31T23:59:59Z'))?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('none is one period for the key’s life and never resets', () => {
    expect(budgetPeriodStart('none', at('2026-11-26T10:00:00Z')).toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(budgetResetsAt('none', at('2026-11-26T10:00:00Z'))).toBeNull();
  });
});
