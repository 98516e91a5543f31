/**
 * How long a Checkout Session can be paid: set explicitly (Stripe's default and maximum is 24 hours).
 * A pending top-up is expired by the maintenance sweep once its session can no longer be paid.
 * Its own file so that the maintenance settings can use it without loading the Stripe SDK.
 */
export const STRIPE_CHECKOUT_TTL_SECONDS = 23 * 3_600 + 30 * 60;
