import type { KeyRateLimiter } from '@gengate/core';
import type { RequestHandler } from 'express';
import { rateLimit, type RateLimitHeaders } from '../middleware/rate-limit.js';

/**
 * OpenAI's names for the window (https://platform.openai.com/docs/guides/rate-limits:
 * `x-ratelimit-limit-requests`, `x-ratelimit-remaining-requests`, `x-ratelimit-reset-requests`).
 */
const openAIHeaders: RateLimitHeaders = (res, w) => {
  res.setHeader('x-ratelimit-limit-requests', String(w.limit));
  res.setHeader('x-ratelimit-remaining-requests', String(w.remaining));
  res.setHeader('x-ratelimit-reset-requests', `${w.resetSeconds}s`);
};

/** The key's per-minute/hour/day limits on /v1: the same count and refusal as /api/v1, with OpenAI's headers. */
export function openAIRateLimit(limiter: KeyRateLimiter): RequestHandler {
  return rateLimit(limiter, openAIHeaders);
}
