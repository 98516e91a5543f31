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
 * How far an expiry is rounded up: a sixtieth of the lifetime, at least 1 s and at most 60 s. A URL handed
 * out now lives between `ttlSeconds` and `ttlSeconds` plus this step (one hour: up to 3,660 s).
 */
export function expiryStepSeconds(ttlSeconds: number): number {
  return Math.min(60, Math.max(1, Math.floor(ttlSeconds / 60)));
}

/** The URLs signed last, by file key: at most this many are kept (then the map starts over). */
const SIGNED_URLS_KEPT = 4_096;

/**
 * Result files are served by the router at `<base><mountPath>/files/<key>`; the base (the public URL)
 * may only be known after listening, and `mountPath` is where the router is mounted under it (default
 * `/api/v1`). With `signing`, each URL carries `?expires=<unix seconds>&signature=<HMAC>`.
 *
 * The expiry is rounded up to a step of the lifetime (expiryStepSeconds), so every URL a file is given
 * within one step is the same URL: a browser or a CDN that caches by URL keeps the file while a client
 * polls its task or reloads a page of tasks, and the signature (an HMAC, about 15 µs each) is computed
 * once per file and step in each process, not at every poll.
 */
export function createResultUrlResolver(getBaseUrl: () => string, signing: ResultUrlSigning | null = null, mountPath = '/api/v1'): ResultUrlResolver {
  if (!signing) return { urlFor: (key) => `${getBaseUrl()}${mountPath}/files/${key}` };
  const now = signing.now ?? Date.now;
  const step = expiryStepSeconds(signing.ttlSeconds);
  const signed = new Map<string, { readonly expires: number; readonly url: string }>();
  return {
    urlFor(key) {
      const expires = Math.ceil((Math.floor(now() / 1000) + signing.ttlSeconds) / step) * step;
      const prefix = `${getBaseUrl()}${mountPath}/files/${key}?`;
      const last = signed.get(key);
      if (last !== undefined && last.expires === expires && last.url.startsWith(prefix)) return last.url;
      const url = `${prefix}expires=${expires}&signature=${signature(signing.secret, key, expires)}`;
      if (signed.size >= SIGNED_URLS_KEPT) signed.clear();
      signed.set(key, { expires, url });
      return url;
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
