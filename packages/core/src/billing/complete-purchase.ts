import { GatewayError } from '../errors/gateway-error.js';
import type { PaymentMethod } from '../model/billing.js';
import type { UnitOfWork } from '../ports/stores.js';
import { isUuid } from '../util/uuid.js';
import { checkBalanceAlerts } from './alert-check.js';

export type PurchaseOutcome = 'completed' | 'already_completed';

/**
 * pending -> completed, exactly once, in one transaction with the balance change and the alert check.
 * A purchase already completed (a webhook delivered twice) is reported, not credited again.
 */
export async function completePendingPurchase(
  uow: UnitOfWork,
  transactionId: string,
  expect: { paymentMethod: PaymentMethod; amountCents: number | null },
): Promise<PurchaseOutcome> {
  return uow.run(async (tx) => {
    const existing = isUuid(transactionId) ? await tx.ledger.findTransaction(transactionId.toLowerCase()) : null;
    if (!existing || existing.paymentMethod !== expect.paymentMethod) {
      throw new GatewayError('invalid_request', `No ${expect.paymentMethod} purchase ${transactionId}.`, { param: 'transaction_id' });
    }
    if (expect.amountCents !== null && existing.amountMicroUsd !== expect.amountCents * 10_000) {
      throw new GatewayError('invalid_request', `The paid amount does not match purchase ${transactionId}.`, { param: 'amount' });
    }
    if (existing.status === 'completed') return 'already_completed';
    const done = await tx.ledger.complete(existing.id);
    if (!done) return 'already_completed';
    await checkBalanceAlerts(tx, done.userId);
    return 'completed';
  });
}
