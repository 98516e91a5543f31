/**
 * The part of the Stripe SDK the webhook route uses, written structurally: the host's declarations (and an
 * embedder's type-check) then need no `stripe` package, which is an optional peer dependency. A `Stripe`
 * client satisfies StripeWebhookVerifier.
 */
export interface StripeWebhookVerifier {
  readonly webhooks: {
    constructEvent(payload: Buffer, header: string, secret: string): StripeEvent;
  };
}

/** The fields of a Stripe event the route reads. */
export interface StripeEvent {
  readonly id: string;
  readonly type: string;
  readonly data: { readonly object: unknown };
}

/** The fields of a Checkout Session the route reads (`checkout.session.completed` / `async_payment_succeeded`). */
export interface StripeCheckoutSession {
  readonly id: string;
  readonly metadata: Readonly<Record<string, string>> | null;
  readonly client_reference_id: string | null;
  readonly payment_status: string;
  readonly amount_total: number | null;
  readonly currency: string | null;
}
