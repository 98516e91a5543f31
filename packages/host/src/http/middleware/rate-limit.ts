import { GatewayError, type ApiKeyLimits, type KeyRateLimiter } from '@gengate/core';
import type { NextFunction, RequestHandler, Response } from 'express';
import { authOf } from './authenticate.js';

/** The most constraining window of a key's limits, as the response headers describe it. */
export interface RateLimitWindow {
  readonly limit: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/** Writes a window as headers; each surface names them its own way. */
export type RateLimitHeaders = (res: Response, window: RateLimitWindow) => void;

/** /api/v1's headers (IETF draft `RateLimit-*`). */
const standardHeaders: RateLimitHeaders = (res, w) => {
  res.setHeader('RateLimit-Limit', String(w.limit));
  res.setHeader('RateLimit-Remaining', String(w.remaining));
  res.setHeader('RateLimit-Reset', String(w.resetSeconds));
};

/** Whether a key carries any per-key limit (a key without one is never counted: FlexibleKeyRateLimiter counts a window only for its limit). */
function hasLimits(limits: ApiKeyLimits): boolean {
  return limits.perMinute !== null || limits.perHour !== null || limits.perDay !== null;
}

/**
 * Counts the request against the key's per-minute/hour/day limits before anything else happens
 * (no credit is held for a refused request). Headers describe the most constraining window; a refusal
 * is a 429 with `Retry-After`. A request without limits (authenticated another way, or a key that carries
 * none) passes on at once, in the same call: no limiter call, no promise (the poll and the submission
 * run through here).
 */
export function rateLimit(limiter: KeyRateLimiter, writeHeaders: RateLimitHeaders = standardHeaders): RequestHandler {
  const limited = async (apiKeyId: string, limits: ApiKeyLimits, res: Response, next: NextFunction): Promise<void> => {
    const decision = await limiter.consume(apiKeyId, limits);
    if (decision.state) writeHeaders(res, decision.state);
    if (!decision.allowed) {
      throw new GatewayError(
        'rate_limited',
        `Rate limit of ${decision.state.limit} requests per ${decision.state.window} reached for this API key; retry after ${decision.retryAfterSeconds} s.`,
        { headers: { 'Retry-After': String(decision.retryAfterSeconds) } },
      );
    }
    next();
  };
  return (_req, res, next) => {
    const auth = authOf(res);
    // Only API keys carry limits; a request authenticated another way (the dashboard's session) has none.
    if (!auth.key || auth.apiKeyId === null || !hasLimits(auth.key.limits)) {
      next();
      return;
    }
    return limited(auth.apiKeyId, auth.key.limits, res, next);
  };
}
