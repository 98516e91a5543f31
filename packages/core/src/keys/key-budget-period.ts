import type { BudgetPeriod } from '../model/api-key.js';

/** The start of `none`: one period for the key's whole life. */
export const LIFETIME_PERIOD_START = new Date(0);

/**
 * The start of the budget period `at` falls in, in UTC: day = 00:00, week = Monday 00:00, month = the
 * 1st 00:00; `none` = 1970-01-01 (one period). The SQL of migration 019 (gengate_key_period_start)
 * computes the same instant.
 */
export function budgetPeriodStart(period: BudgetPeriod, at: Date): Date {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  const d = at.getUTCDate();
  switch (period) {
    case 'day':
      return new Date(Date.UTC(y, m, d));
    case 'week':
      // getUTCDay: Sunday 0 ... Saturday 6; days since Monday.
      return new Date(Date.UTC(y, m, d - ((at.getUTCDay() + 6) % 7)));
    case 'month':
      return new Date(Date.UTC(y, m, 1));
    case 'none':
      return LIFETIME_PERIOD_START;
  }
}

/** When the period `at` falls in ends (the next one starts); null for `none`. */
export function budgetResetsAt(period: BudgetPeriod, at: Date): Date | null {
  const start = budgetPeriodStart(period, at);
  const y = start.getUTCFullYear();
  const m = start.getUTCMonth();
  const d = start.getUTCDate();
  switch (period) {
    case 'day':
      return new Date(Date.UTC(y, m, d + 1));
    case 'week':
      return new Date(Date.UTC(y, m, d + 7));
    case 'month':
      return new Date(Date.UTC(y, m + 1, 1));
    case 'none':
      return null;
  }
}
