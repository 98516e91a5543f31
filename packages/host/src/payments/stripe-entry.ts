/** @gengate/host/stripe: Stripe Checkout top-ups (loads the Stripe SDK; import it only when you sell credits through Stripe). */
// First: refuses an older Node.js with one clear line before any dependency can crash at import.
import '../node-version-guard.js';
export { StripePaymentProcessor, createStripeClient, STRIPE_CHECKOUT_TTL_SECONDS, type StripeOptions } from './stripe-processor.js';
