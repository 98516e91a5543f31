import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Recognisable prefix so secret scanners can find leaked keys. */
export const API_KEY_PREFIX = 'gg_live_';
const SECRET_SHAPE = /^gg_live_[A-Za-z0-9_-]{43}$/;

/** A new secret: the prefix and 256 random bits, base64url. */
export function generateApiKeySecret(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function looksLikeApiKey(secret: string): boolean {
  return SECRET_SHAPE.test(secret);
}

/**
 * SHA-256 hex of the secret: what the store keeps (the secret has 256 bits of entropy, so no slow hash is
 * needed). One-shot `crypto.hash`: every authenticated request hashes its key, and a Hash object per call
 * costs more than the digest itself.
 */
export function hashApiKeySecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function maskApiKeySecret(secret: string): string {
  return `${API_KEY_PREFIX}...${secret.slice(-4)}`;
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
