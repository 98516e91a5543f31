import { GatewayError, type KeyRateLimiter } from '@gengate/core';
import type { RequestHandler, Response } from 'express';
import { authOf } from './authenticate.js';

function setHeaders(res: Response, limit: number, remaining: number, resetSeconds: number): void {
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(remaining));
  res.setHeader('RateLimit-Reset', String(resetSeconds));
}

/**
 * Counts the request against the key's per-minute/hour/day limits before anything else happens
 * (no credit is held for a refused request). Headers describe the most constraining window.
 */
export function rateLimit(limiter: KeyRateLimiter): RequestHandler {
  return async (_req, res, next) => {
    const auth = authOf(res);
    // Only API keys carry limits; a request authenticated another way (the dashboard's session) has none.
    if (!auth.key || auth.apiKeyId === null) {
      next();
      return;
    }
    const decision = await limiter.consume(auth.apiKeyId, auth.key.limits);
    if (decision.state) setHeaders(res, decision.state.limit, decision.state.remaining, decision.state.resetSeconds);
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
