import { GatewayError, type Gengate } from '@gengate/core';
import express, { Router } from 'express';
import { mapBodyErrors, refuseUndecodableBodies } from '../middleware/body-errors.js';
import type Stripe from 'stripe';

export interface StripeWebhookOptions {
  readonly stripe: Stripe;
  readonly webhookSecret: string;
}

const PAID_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

/**
 * POST /billing/stripe/webhook (no API key: Stripe signs it). The signature is verified on the raw body;
 * a paid Checkout Session completes its pending purchase exactly once, however often Stripe delivers it.
 */
export function stripeWebhookRoutes(gengate: Gengate, opts: StripeWebhookOptions): Router {
  const router = Router();
  const maxBytes = 1_048_576;
  router.post('/billing/stripe/webhook', refuseUndecodableBodies({ utf8Only: false }), express.raw({ type: () => true, limit: maxBytes }), mapBodyErrors(maxBytes), async (req, res) => {
    const signature = req.headers['stripe-signature'];
    let event: Stripe.Event;
    try {
      event = opts.stripe.webhooks.constructEvent(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), String(signature ?? ''), opts.webhookSecret);
    } catch {
      throw new GatewayError('invalid_request', 'Stripe signature verification failed.', { param: 'stripe-signature' });
    }
    if (PAID_EVENTS.has(event.type)) {
      const session = event.data.object as Stripe.Checkout.Session;
      const transactionId = session.metadata?.['transaction_id'] ?? session.client_reference_id;
      if (session.payment_status === 'paid' && transactionId) {
        const outcome = await gengate.billing.completePurchase(transactionId, { paymentMethod: 'stripe', amountCents: session.amount_total });
        req.log.info({ transactionId, outcome, eventId: event.id }, 'stripe checkout completed');
      }
    }
    res.json({ received: true });
  });
  return router;
}
