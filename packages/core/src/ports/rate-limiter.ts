import type { ApiKeyLimits } from '../model/api-key.js';

export type RateLimitWindow = 'minute' | 'hour' | 'day';

export interface RateLimitState {
  readonly window: RateLimitWindow;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until this window's count resets. */
  readonly resetSeconds: number;
}

export type RateLimitDecision =
  | { readonly allowed: true; /** The most constraining window, null when the key has no limit. */ readonly state: RateLimitState | null }
  | { readonly allowed: false; readonly state: RateLimitState; readonly retryAfterSeconds: number };

/** Counts one request against each of a key's limits; shared by every process using the same store. */
export interface KeyRateLimiter {
  consume(apiKeyId: string, limits: ApiKeyLimits): Promise<RateLimitDecision>;
}
