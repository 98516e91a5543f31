import type { ApiKey } from './types';

/** How often a key's spend limit starts again (UTC boundaries, docs/api-keys.md). */
export type BudgetPeriod = 'day' | 'week' | 'month' | 'none';

/** The spend controls and the current period's use that `GET /api/v1/api-keys` gives beside each key. */
export interface KeyBudgetFields {
  /** Credits per period; null: no budget on this key (the balance still applies). */
  spend_limit: number | null;
  budget_period: BudgetPeriod;
  /** Held + charged credits in the current period. */
  spent: number;
  /** spend_limit - spent, never below 0; null without a limit. */
  remaining: number | null;
  /** End of the current period (ISO 8601, UTC); null for `none`. */
  resets_at: string | null;
}

export type ApiKeyWithBudget = ApiKey & Partial<KeyBudgetFields>;
