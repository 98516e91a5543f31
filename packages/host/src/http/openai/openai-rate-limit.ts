import { GatewayError, type KeyRateLimiter } from '@gengate/core';
import type { RequestHandler } from 'express';
import { authOf } from '../middleware/authenticate.js';

/**
 * The key's per-minute/hour/day limits on /v1, with OpenAI's headers
 * (https://platform.openai.com/docs/guides/rate-limits: `x-ratelimit-limit-requests`,
 * `x-ratelimit-remaining-requests`, `x-ratelimit-reset-requests`) for the most constraining window, and
 * `Retry-After` on the 429. The count is the same one /api/v1 uses.
 */
export function openAIRateLimit(limiter: KeyRateLimiter): RequestHandler {
  return async (_req, res, next) => {
    const auth = authOf(res);
    if (!auth.key || auth.apiKeyId === null) {
      next();
      return;
    }
    const decision = await limiter.consume(auth.apiKeyId, auth.key.limits);
    if (decision.state) {
      res.setHeader('x-ratelimit-limit-requests', String(decision.state.limit));
      res.setHeader('x-ratelimit-remaining-requests', String(decision.state.remaining));
      res.setHeader('x-ratelimit-reset-requests', `${decision.state.resetSeconds}s`);
    }
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
