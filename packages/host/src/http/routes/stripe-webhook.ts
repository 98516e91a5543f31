import { GatewayError, type GengateUseCases } from '@gengate/core';
import express, { Router, type Request, type Response } from 'express';
import type { StripeCheckoutSession, StripeEvent, StripeWebhookVerifier } from '../../payments/stripe-webhook-types.js';
import { mapBodyErrors, refuseUndecodableBodies } from '../middleware/body-errors.js';

export interface StripeWebhookOptions {
  /** The Stripe SDK client (createStripeClient), or anything that verifies a webhook the same way. */
  readonly stripe: StripeWebhookVerifier;
  readonly webhookSecret: string;
}

const PAID_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
const MAX_BYTES = 1_048_576;

/**
 * POST /billing/stripe/webhook (no API key: Stripe signs it). The signature is verified on the raw body;
 * a paid Checkout Session completes its pending purchase exactly once, however often Stripe delivers it,
 * and only when it carries the amount and currency of the purchase: a session without them, or with
 * others, is refused (400, logged at warn) and changes nothing.
 */
export function stripeWebhookRoutes({ billing }: Pick<GengateUseCases, 'billing'>, opts: StripeWebhookOptions): Router {
  const router = Router();
  router.post(
    '/billing/stripe/webhook',
    refuseUndecodableBodies({ utf8Only: false }),
    express.raw({ type: () => true, limit: MAX_BYTES }),
    mapBodyErrors(MAX_BYTES),
    async (req: Request, res: Response) => {
      const signature = req.headers['stripe-signature'];
      let event: StripeEvent;
      try {
        event = opts.stripe.webhooks.constructEvent(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), String(signature ?? ''), opts.webhookSecret);
      } catch {
        throw new GatewayError('invalid_request', 'Stripe signature verification failed.', { param: 'stripe-signature' });
      }
      if (PAID_EVENTS.has(event.type)) {
        const session = event.data.object as StripeCheckoutSession;
        const transactionId = session.metadata?.['transaction_id'] ?? session.client_reference_id;
        if (session.payment_status === 'paid' && transactionId) {
          const refuse = (reason: string, param: string): never => {
            req.log.warn({ transactionId, eventId: event.id, reason }, 'stripe checkout refused');
            throw new GatewayError('invalid_request', `Checkout Session ${session.id}: ${reason}; nothing was credited.`, { param });
          };
          const amountCents = session.amount_total;
          const currency = session.currency;
          if (typeof amountCents !== 'number' || !Number.isSafeInteger(amountCents)) refuse('it carries no amount_total', 'amount_total');
          if (typeof currency !== 'string' || currency === '') refuse('it carries no currency', 'currency');
          let outcome;
          try {
            outcome = await billing.completePurchase(transactionId, { paymentMethod: 'stripe', amountCents: amountCents as number, currency: currency as string });
          } catch (err) {
            if (err instanceof GatewayError && err.type === 'invalid_request') refuse(err.message, err.param ?? 'transaction_id');
            throw err;
          }
          req.log.info({ transactionId, outcome, eventId: event.id }, 'stripe checkout completed');
        }
      }
      res.json({ received: true });
    },
  );
  return router;
}
