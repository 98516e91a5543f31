import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url: the cookie value of a session, or the token of a sign-in link. */
export function newSessionSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the stores keep instead of a secret. */
export function hashSessionSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * The session's CSRF token: HMAC-SHA256 of a fixed label keyed by the session secret (OWASP's HMAC
 * synchronizer token). Only code that can read the HttpOnly cookie's value (the server) can compute it;
 * the dashboard reads it from GET /dashboard/api/session (same origin only) and sends it as a header.
 */
export function csrfTokenFor(sessionSecret: string): string {
  return createHmac('sha256', sessionSecret).update('gengate-csrf-v1').digest('base64url');
}

export function csrfTokenMatches(sessionSecret: string, presented: string | null | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfTokenFor(sessionSecret));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** base64url of 32 bytes. */
export function looksLikeSessionSecret(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}
