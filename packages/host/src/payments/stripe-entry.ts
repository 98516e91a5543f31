/**
 * @gengate/host/stripe: Stripe Checkout top-ups. The Stripe SDK (the optional peer `stripe`) is loaded by
 * `createStripeClient`; without it that rejects with an OptionalDependencyMissing naming the package.
 */
// First: refuses an older Node.js with one clear line before any dependency can crash at import.
import '../node-version-guard.js';
export { StripePaymentProcessor, createStripeClient, STRIPE_CHECKOUT_TTL_SECONDS, type StripeOptions } from './stripe-processor.js';
