import { WebhookRejected, type WebhookEvent, type WebhookRequest } from '@gengate/core';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { parsePrediction, predictionStatus } from './replicate-predictions.js';

/**
 * Verifies Replicate's webhooks as Replicate documents them (https://replicate.com/docs/topics/webhooks/verify-webhook):
 * the Standard Webhooks scheme, HMAC-SHA256 with the account's `whsec_` secret over
 * "{webhook-id}.{webhook-timestamp}.{raw body}", any of the space-separated `v1,` signatures matching in constant
 * time, the timestamp within 5 minutes. Implemented by the `standardwebhooks` package (the reference library of
 * that specification) rather than by hand.
 */
export function verifyReplicateWebhook(secret: string, request: WebhookRequest): void {
  const h = request.headers;
  if (!h['webhook-id'] || !h['webhook-timestamp'] || !h['webhook-signature']) throw new WebhookRejected('missing webhook-id, webhook-timestamp or webhook-signature');
  try {
    new Webhook(secret).verify(Buffer.from(request.rawBody), { 'webhook-id': h['webhook-id'], 'webhook-timestamp': h['webhook-timestamp'], 'webhook-signature': h['webhook-signature'] });
  } catch (e) {
    if (e instanceof WebhookVerificationError) throw new WebhookRejected(`Replicate webhook refused: ${e.message}`);
    throw e;
  }
}

/** A verified Replicate webhook body is the prediction: its end, or null for a non-terminal event. */
export function readReplicateWebhook(body: unknown, kind: 'video' | 'image'): WebhookEvent | null {
  let p;
  try {
    p = parsePrediction(body);
  } catch {
    return null;
  }
  if (p.status === 'starting' || p.status === 'processing') return null;
  let status;
  try {
    status = predictionStatus(p, kind);
  } catch (e) {
    status = { state: 'failed' as const, error: e as never };
  }
  return { jobId: p.id, status };
}
