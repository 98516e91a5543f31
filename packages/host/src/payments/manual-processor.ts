import type { PaymentProcessor } from '@gengate/core';
import { injectable } from 'inversify';

/**
 * The default processor when no payment provider is configured: a top-up stays `pending` until an operator
 * completes it with `gengate topups complete <transaction_id>`.
 */
@injectable()
export class ManualPaymentProcessor implements PaymentProcessor {
  readonly id = 'manual' as const;

  async createCheckout(): Promise<{ checkoutUrl: null; externalRef: null }> {
    return { checkoutUrl: null, externalRef: null };
  }
}
