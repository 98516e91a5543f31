/** A third-party payment processor that sells credits. */
export interface PaymentProcessor {
  readonly id: 'stripe' | 'manual';
  /** Starts a purchase; returns where the user pays (null for `manual`, completed by an operator). */
  createCheckout(input: {
    transactionId: string;
    userId: string;
    amountCents: number;
    credits: number;
  }): Promise<{ checkoutUrl: string | null; externalRef: string | null }>;
}
