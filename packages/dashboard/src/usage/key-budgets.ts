/** The per-key budget bars: spent against the limit of the current period, from `GET /api/v1/api-keys`. */
import type { ApiKey, BudgetPeriod } from '../api/types';

const MICRO = 1_000_000;

export interface KeyBudgetBar {
  id: string;
  name: string;
  limit: number;
  /** What the bar fills: the spent credits, at most the limit. */
  spent: number;
  /** The rest of the bar up to the limit. */
  remaining: number;
  /** Spent in percent of the limit, whole percent, rounded down (100 only when all of it is spent). */
  percent: number;
  period: BudgetPeriod;
  resets_at: string | null;
}

/** Keys with a spend limit, the fullest first; keys without one are named apart. */
export function keyBudgetBars(keys: readonly ApiKey[]): { bars: KeyBudgetBar[]; unlimited: string[] } {
  const bars: KeyBudgetBar[] = [];
  const unlimited: string[] = [];
  for (const k of keys) {
    if (k.spend_limit === null) {
      unlimited.push(k.name);
      continue;
    }
    const limitMicro = Math.round(k.spend_limit * MICRO);
    const spentMicro = Math.min(Math.round(k.spent * MICRO), limitMicro);
    bars.push({
      id: k.id,
      name: k.name,
      limit: limitMicro / MICRO,
      spent: spentMicro / MICRO,
      remaining: (limitMicro - spentMicro) / MICRO,
      percent: limitMicro === 0 ? 100 : Math.floor((spentMicro * 100) / limitMicro),
      period: k.budget_period,
      resets_at: k.resets_at,
    });
  }
  bars.sort((a, b) => b.percent - a.percent || a.name.localeCompare(b.name));
  return { bars, unlimited };
}

const PERIOD_WORDS: Record<BudgetPeriod, string> = { day: 'per UTC day', week: 'per UTC week', month: 'per UTC month', none: 'in all' };
export const periodWords = (p: BudgetPeriod): string => PERIOD_WORDS[p];

/** "resets Nov 27, 00:00 UTC", or "never resets" for a budget over the key's whole life. */
export function resetWords(resetsAt: string | null): string {
  if (!resetsAt) return 'never resets';
  const d = new Date(resetsAt);
  return `resets ${d.toLocaleString('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' })} UTC`;
}
