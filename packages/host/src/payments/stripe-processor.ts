import type { PaymentProcessor } from '@gengate/core';
import type Stripe from 'stripe';
import { importOptional } from '../optional-dependency.js';
import { STRIPE_CHECKOUT_TTL_SECONDS } from './stripe-checkout-ttl.js';

export interface StripeOptions {
  readonly secretKey: string;
  /** Where Stripe sends the payer after paying / cancelling. */
  readonly successUrl: string;
  readonly cancelUrl: string;
  /** Base URL of the Stripe API; only for tests against a fake (default: Stripe's). */
  readonly apiUrl?: string | null;
}

export { STRIPE_CHECKOUT_TTL_SECONDS };

/**
 * A Stripe SDK client, pointed at a fake API when apiUrl is given. The SDK (an optional peer dependency)
 * is imported here, on first use: without it this rejects with an OptionalDependencyMissing naming it.
 */
export async function createStripeClient(opts: Pick<StripeOptions, 'secretKey' | 'apiUrl'>): Promise<Stripe> {
  const { default: Stripe } = await importOptional('stripe', () => import('stripe'));
  if (!opts.apiUrl) return new Stripe(opts.secretKey, { maxNetworkRetries: 2 });
  const url = new URL(opts.apiUrl);
  return new Stripe(opts.secretKey, {
    host: url.hostname,
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    protocol: url.protocol === 'https:' ? 'https' : 'http',
    maxNetworkRetries: 0,
  });
}

/**
 * Top-ups through Stripe Checkout: a Checkout Session per pending purchase, carrying the gengate
 * transaction id in its metadata; the signed `checkout.session.completed` webhook completes it.
 */
export class StripePaymentProcessor implements PaymentProcessor {
  readonly id = 'stripe' as const;

  constructor(
    private readonly stripe: Stripe,
    private readonly opts: Pick<StripeOptions, 'successUrl' | 'cancelUrl'>,
  ) {}

  async createCheckout(input: { transactionId: string; userId: string; amountCents: number; credits: number }) {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        client_reference_id: input.transactionId,
        metadata: { transaction_id: input.transactionId, user_id: input.userId },
        line_items: [
          {
            quantity: 1,
            price_data: { currency: 'usd', unit_amount: input.amountCents, product_data: { name: `${input.credits} gengate credits` } },
          },
        ],
        success_url: this.opts.successUrl,
        cancel_url: this.opts.cancelUrl,
        expires_at: Math.floor(Date.now() / 1000) + STRIPE_CHECKOUT_TTL_SECONDS,
      },
      { idempotencyKey: `gengate-topup-${input.transactionId}` },
    );
    return { checkoutUrl: session.url, externalRef: session.id };
  }
}
