import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { UpstreamError, WebhookRejected, upstreamErrorFromResponse, type LongRunningStatus, type WebhookEvent, type WebhookRequest } from '@gengate/core/adapter';
import { z } from 'zod';
import { callUpstream, WebhookKeys } from '../kit/index.js';
import { classifyFal } from './fal-mapping.js';
import { falResult } from './fal-queue.js';

/** fal's public webhook keys (https://docs.fal.ai/model-endpoints/webhooks#verifying-your-webhook). */
export const FAL_JWKS_URL = 'https://rest.alpha.fal.ai/.well-known/jwks.json';
/** fal's documented leeway for X-Fal-Webhook-Timestamp. */
const TOLERANCE_SECONDS = 300;
/** fal's documented cache lifetime for its keys. */
const KEYS_TTL_MS = 24 * 60 * 60 * 1000;

const jwksSchema = z.object({ keys: z.array(z.object({ kty: z.string(), crv: z.string().optional(), x: z.string().optional() }).passthrough()) });

export interface FalWebhookVerifierOptions {
  readonly jwksUrl: string;
  readonly fetch: typeof fetch;
  readonly now?: () => number;
}

/**
 * Verifies fal's completion webhooks as fal documents: ED25519 over
 * `{X-Fal-Webhook-Request-Id}\n{X-Fal-Webhook-User-Id}\n{X-Fal-Webhook-Timestamp}\n{hex sha256 of the raw body}`,
 * the hex signature in X-Fal-Webhook-Signature checked against any key of fal's JWKS, the timestamp within
 * ±5 minutes. Uses node:crypto's Ed25519 (no extra dependency). The headers are checked before any key is
 * fetched; keys are cached for 24 hours and fetched at most once a minute (after a signature mismatch: a
 * rotated key), concurrent requests sharing one fetch (WebhookKeys).
 */
export class FalWebhookVerifier {
  private readonly keys: WebhookKeys<KeyObject[]>;
  private readonly now: () => number;

  constructor(private readonly options: FalWebhookVerifierOptions) {
    this.now = options.now ?? Date.now;
    this.keys = new WebhookKeys({ what: "fal's webhook keys", fetch: () => this.fetchKeys(), maxAgeMs: KEYS_TTL_MS, now: this.now });
  }

  async verify(request: WebhookRequest): Promise<void> {
    const h = request.headers;
    const requestId = h['x-fal-webhook-request-id'];
    const userId = h['x-fal-webhook-user-id'];
    const timestamp = h['x-fal-webhook-timestamp'];
    const signature = h['x-fal-webhook-signature'];
    if (!requestId || !userId || !timestamp || !signature) throw new WebhookRejected('missing X-Fal-Webhook-* signature headers');
    if (!/^\d+$/.test(timestamp) || Math.abs(this.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) {
      throw new WebhookRejected('the webhook timestamp is outside the 5-minute tolerance (stale or replayed)');
    }
    if (!/^[0-9a-f]+$/i.test(signature) || signature.length !== 128) throw new WebhookRejected('the webhook signature is not a hex Ed25519 signature');
    const digest = createHash('sha256').update(request.rawBody).digest('hex');
    const message = Buffer.from([requestId, userId, timestamp, digest].join('\n'));
    const sig = Buffer.from(signature, 'hex');
    const keys = await this.keys.get();
    if (keys.some((k) => verify(null, message, k, sig))) return;
    const fresh = await this.keys.get({ refresh: true });
    if (fresh !== keys && fresh.some((k) => verify(null, message, k, sig))) return;
    throw new WebhookRejected('the webhook signature does not match any of fal\'s public keys');
  }

  private async fetchKeys(): Promise<KeyObject[]> {
    const res = await callUpstream({ fetch: this.options.fetch, url: this.options.jwksUrl, headers: {}, signal: AbortSignal.timeout(10_000) });
    const parsed = jwksSchema.safeParse(res.json);
    if (!parsed.success) throw new UpstreamError('fal\'s JWKS is not a key set', { kind: 'bad_output' });
    return parsed.data.keys
      .filter((k) => k.kty === 'OKP' && k.crv === 'Ed25519' && typeof k.x === 'string')
      .map((k) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.x as string }, format: 'jwk' }));
  }
}

const webhookBody = z.object({
  request_id: z.string(),
  status: z.string(),
  payload: z.unknown().optional(),
  error: z.string().nullish(),
  payload_error: z.string().nullish(),
});

/** A verified fal webhook body: `OK` carries the model's output, `ERROR` the failure (its status in `error`, details in `payload`). */
export function readFalWebhook(body: unknown): WebhookEvent | null {
  const parsed = webhookBody.safeParse(body);
  if (!parsed.success) return null;
  const w = parsed.data;
  let status: LongRunningStatus;
  if (w.status === 'OK' && w.payload !== null && w.payload !== undefined) {
    try {
      status = { state: 'succeeded', result: falResult(w.payload) };
    } catch (e) {
      status = { state: 'failed', error: e as UpstreamError };
    }
  } else {
    const code = /(\d{3})/.exec(w.error ?? '')?.[1];
    const detail = JSON.stringify(w.payload ?? w.payload_error ?? w.error ?? 'fal reported an error');
    status = { state: 'failed', error: upstreamErrorFromResponse({ status: code ? Number(code) : 500, headers: {}, body: detail }, { classify: classifyFal }) };
  }
  return { jobId: w.request_id, status };
}
