import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ResultUrlResolver } from '@gengate/core';

/** Expiring result URLs: an HMAC-SHA256 over the file key and the expiry, with a secret every process shares. */
export interface ResultUrlSigning {
  /** The server secret (kept in the database, so every process signs and verifies alike). */
  readonly secret: Buffer;
  /** How long a URL handed out now stays valid. */
  readonly ttlSeconds: number;
  /** Milliseconds since the epoch; default Date.now. */
  readonly now?: () => number;
}

export type ResultUrlCheck = { readonly ok: true; readonly expiresAt: number | null } | { readonly ok: false; readonly reason: 'expired' | 'invalid' };

/** Checks the `expires` and `signature` query parameters of a result file request. */
export interface ResultUrlVerifier {
  verify(key: string, query: { expires?: unknown; signature?: unknown }): ResultUrlCheck;
}

function signature(secret: Buffer, key: string, expires: number): string {
  return createHmac('sha256', secret).update(`gengate-result-url\n${key}\n${expires}`).digest('base64url');
}

/**
 * Result files are served by the router at `<base><mountPath>/files/<key>`; the base (the public URL)
 * may only be known after listening, and `mountPath` is where the router is mounted under it (default
 * `/api/v1`). With `signing`, each URL carries `?expires=<unix seconds>&signature=<HMAC>`.
 */
export function createResultUrlResolver(getBaseUrl: () => string, signing: ResultUrlSigning | null = null, mountPath = '/api/v1'): ResultUrlResolver {
  if (!signing) return { urlFor: (key) => `${getBaseUrl()}${mountPath}/files/${key}` };
  const now = signing.now ?? Date.now;
  return {
    urlFor(key) {
      const expires = Math.floor(now() / 1000) + signing.ttlSeconds;
      return `${getBaseUrl()}${mountPath}/files/${key}?expires=${expires}&signature=${signature(signing.secret, key, expires)}`;
    },
  };
}

/** Verifies what createResultUrlResolver signed: a wrong or missing signature is `invalid`, a past expiry `expired`. */
export function createResultUrlVerifier(signing: Pick<ResultUrlSigning, 'secret' | 'now'>): ResultUrlVerifier {
  const now = signing.now ?? Date.now;
  return {
    verify(key, query) {
      const { expires, signature: given } = query;
      if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof given !== 'string') return { ok: false, reason: 'invalid' };
      const expected = Buffer.from(signature(signing.secret, key, Number(expires)));
      const actual = Buffer.from(given);
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return { ok: false, reason: 'invalid' };
      if (Number(expires) * 1000 <= now()) return { ok: false, reason: 'expired' };
      return { ok: true, expiresAt: Number(expires) };
    },
  };
}
