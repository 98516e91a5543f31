import { GatewayError } from '../errors/gateway-error.js';
import { microToCredits } from '../util/money.js';

/** The client's error for a submission past the member's spend limit (402, `error.resets_at`). */
export function memberBudgetError(r: { readonly limitMicro: number; readonly spentMicro: number; readonly resetsAt: Date | null }): GatewayError {
  const resets = r.resetsAt ? `; its period starts again at ${r.resetsAt.toISOString()}` : '; it never resets (budget_period none): an owner or admin can raise it';
  return new GatewayError(
    'member_budget_exceeded',
    `You have spent ${microToCredits(r.spentMicro)} of your ${microToCredits(r.limitMicro)} credit spend limit in this organization this period and the quote does not fit${resets}. Nothing was held.`,
    { resetsAt: r.resetsAt },
  );
}
