import { GatewayError, type KeyRateLimiter } from '@gengate/core';
import type { RequestHandler, Response } from 'express';
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

/**
 * Counts the request against the key's per-minute/hour/day limits before anything else happens
 * (no credit is held for a refused request). Headers describe the most constraining window; a refusal
 * is a 429 with `Retry-After`.
 */
export function rateLimit(limiter: KeyRateLimiter, writeHeaders: RateLimitHeaders = standardHeaders): RequestHandler {
  return async (_req, res, next) => {
    const auth = authOf(res);
    // Only API keys carry limits; a request authenticated another way (the dashboard's session) has none.
    if (!auth.key || auth.apiKeyId === null) {
      next();
      return;
    }
    const decision = await limiter.consume(auth.apiKeyId, auth.key.limits);
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
}
