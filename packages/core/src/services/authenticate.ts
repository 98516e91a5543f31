import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ApiKeyRecord } from '../model/api-key.js';
import { hashApiKeySecret, hashesEqual, looksLikeApiKey } from '../keys/api-key-secret.js';
import { compileWhitelist } from '../keys/ip-whitelist.js';
import type { Clock } from '../ports/system.js';
import type { KeyLookupOptions, KeyStore } from '../ports/stores.js';
import type { AuthContext } from './auth-context.js';

const TOUCH_INTERVAL_MS = 60_000;

/** RFC 9110: a 401 names the scheme it expects. */
export const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="gengate"' } as const;

export interface Authenticated extends AuthContext {
  readonly apiKeyId: string;
  readonly key: ApiKeyRecord;
}

/** Resolves a bearer secret to its user: unknown or revoked -> 401, address outside the whitelist -> 403. */
@injectable()
export class Authenticate {
  constructor(
    @inject(TOKENS.KeyStore) private readonly keys: KeyStore,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  /**
   * `acceptCached`: the key may come from the key store's cache (a request that only reads, or a submission,
   * which re-checks the key when it commits); see KeyLookupOptions. The whitelist and limits are then the
   * cached row's.
   */
  async execute(secret: string | null, clientIp: string | null, lookup: KeyLookupOptions = {}): Promise<Authenticated> {
    if (!secret) {
      throw new GatewayError('authentication_failed', 'Missing API key: send the header Authorization: Bearer <API_KEY>.', { headers: CHALLENGE });
    }
    const hash = hashApiKeySecret(secret);
    const key = looksLikeApiKey(secret) ? await this.keys.findActiveByHash(hash, lookup) : null;
    if (!key || !hashesEqual(key.secretHash, hash)) {
      throw new GatewayError('authentication_failed', 'Invalid or revoked API key.', { headers: CHALLENGE });
    }
    if (key.ipWhitelist.length > 0 && !(clientIp !== null && compileWhitelist(key.ipWhitelist)(clientIp))) {
      throw new GatewayError('ip_not_allowed', `Requests from ${clientIp ?? 'this address'} are not allowed for this API key.`);
    }
    const now = this.clock.now();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await this.keys.touchLastUsed(key.id, now);
    }
    return { userId: key.userId, memberId: key.memberId ?? key.userId, apiKeyId: key.id, key };
  }
}
