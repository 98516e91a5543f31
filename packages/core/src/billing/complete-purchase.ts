import { GatewayError } from '../errors/gateway-error.js';
import type { UnitOfWork } from '../ports/stores.js';
import { isUuid } from '../util/uuid.js';
import { checkBalanceAlerts } from './alert-check.js';

export type PurchaseOutcome = 'completed' | 'already_completed';

/** Purchases are priced in USD. */
export const PURCHASE_CURRENCY = 'usd';

/**
 * What the processor reports as paid. A processor's report must carry the amount and currency paid,
 * both compared with the pending purchase; an operator completing a manual purchase vouches for it.
 */
export type PaidPurchase =
  | { readonly paymentMethod: 'stripe'; readonly amountCents: number; readonly currency: string }
  | { readonly paymentMethod: 'manual' };

/**
 * pending (or expired) -> completed, exactly once, in one transaction with the balance change and the
 * alert check. A purchase already completed (a webhook delivered twice) is reported, not credited again.
 * A payment whose amount or currency differs from the purchase is refused and changes nothing.
 */
export async function completePendingPurchase(uow: UnitOfWork, transactionId: string, paid: PaidPurchase): Promise<PurchaseOutcome> {
  return uow.run(async (tx) => {
    const existing = isUuid(transactionId) ? await tx.ledger.findTransaction(transactionId.toLowerCase()) : null;
    if (!existing || existing.paymentMethod !== paid.paymentMethod) {
      throw new GatewayError('invalid_request', `No ${paid.paymentMethod} purchase ${transactionId}.`, { param: 'transaction_id' });
    }
    if (paid.paymentMethod !== 'manual') {
      if (paid.currency.toLowerCase() !== PURCHASE_CURRENCY) {
        throw new GatewayError('invalid_request', `The payment's currency does not match purchase ${transactionId}.`, { param: 'currency' });
      }
      if (existing.amountMicroUsd !== paid.amountCents * 10_000) {
        throw new GatewayError('invalid_request', `The paid amount does not match purchase ${transactionId}.`, { param: 'amount' });
      }
    }
    if (existing.status === 'completed') return 'already_completed';
    const done = await tx.ledger.complete(existing.id);
    if (!done) return 'already_completed';
    await checkBalanceAlerts(tx, done.userId);
    return 'completed';
  });
}
