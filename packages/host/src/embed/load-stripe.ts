import type { PaymentProcessor } from '@gengate/core';
import type { StripeWebhookOptions } from '../http/routes/stripe-webhook.js';
import type { StripeHostOptions } from './gengate-host-options.js';

function read(value: string | (() => string) | null | undefined, fallback: () => string): string {
  if (typeof value === 'function') return value();
  return value ?? fallback();
}

/** Stripe Checkout top-ups and the signed webhook; the Stripe SDK (optional) is imported here, only when Stripe is configured. */
export async function loadStripe(o: StripeHostOptions, apiUrl: () => string): Promise<{ processor: PaymentProcessor; webhook: StripeWebhookOptions }> {
  const { createStripeClient, StripePaymentProcessor } = await import('../payments/stripe-processor.js');
  const stripe = await createStripeClient({ secretKey: o.secretKey, apiUrl: o.apiUrl ?? null });
  const processor = new StripePaymentProcessor(stripe, {
    get successUrl() {
      return read(o.successUrl, () => `${apiUrl()}/billing/balance?checkout=success`);
    },
    get cancelUrl() {
      return read(o.cancelUrl, () => `${apiUrl()}/billing/balance?checkout=cancelled`);
    },
  });
  return { processor, webhook: { stripe, webhookSecret: o.webhookSecret } };
}
