/** Active API keys a user can have at most (every store enforces it on insert: errors/caps.ts). */
export const MAX_KEYS_PER_USER = 50;

export interface ApiKeyLimits {
  readonly perMinute: number | null;
  readonly perHour: number | null;
  readonly perDay: number | null;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  /** SHA-256 hex of the full secret; the secret itself is never stored. */
  readonly secretHash: string;
  /** Display mask: prefix and last four characters. */
  readonly mask: string;
  readonly limits: ApiKeyLimits;
  /** IPv4/IPv6 addresses or CIDR ranges; empty = any address. */
  readonly ipWhitelist: readonly string[];
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** A listed key (secret masked). */
export interface ApiKeyView {
  id: string;
  name: string;
  key: string;
  rate_limit_per_minute: number | null;
  rate_limit_per_hour: number | null;
  rate_limit_per_day: number | null;
  ip_whitelist: string[];
  created_at: string;
  last_used_at: string | null;
}

/** The create response: the only place the full secret appears. */
export interface CreatedApiKeyView {
  id: string;
  name: string;
  key: string;
  created_at: string;
}
