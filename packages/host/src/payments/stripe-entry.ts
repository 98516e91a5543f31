/** @gengate/host/stripe: Stripe Checkout top-ups (loads the Stripe SDK; import it only when you sell credits through Stripe). */
export { StripePaymentProcessor, createStripeClient, STRIPE_CHECKOUT_TTL_SECONDS, type StripeOptions } from './stripe-processor.js';
