import { WebhookRejected, type WebhookEvent, type WebhookRequest } from '@gengate/core/adapter';
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
  const h = replicateSignatureHeaders(request);
  try {
    new Webhook(secret).verify(Buffer.from(request.rawBody), h);
  } catch (e) {
    if (e instanceof WebhookVerificationError) throw new WebhookRejected(`Replicate webhook refused: ${e.message}`);
    // verify() parses the body as JSON once the signature matched: a signed body that is not JSON is
    // authentic, and the caller's own parse answers it with a 400.
    if (e instanceof SyntaxError) return;
    throw e;
  }
}

/** The three Standard Webhooks headers, or WebhookRejected when one is missing (checked before the secret is fetched). */
export function replicateSignatureHeaders(request: WebhookRequest): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  const h = request.headers;
  const id = h['webhook-id'];
  const timestamp = h['webhook-timestamp'];
  const signature = h['webhook-signature'];
  if (!id || !timestamp || !signature) throw new WebhookRejected('missing webhook-id, webhook-timestamp or webhook-signature');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
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
