import type { IncomingMessage } from 'node:http';
import { GatewayError, type GengateUseCases, type KeyRateLimiter } from '@gengate/core';
import { Router, type Request, type RequestHandler } from 'express';
import { authenticate } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';
import { jsonBody } from '../middleware/json-body.js';
import { rateLimit, type RateLimitHeaders } from '../middleware/rate-limit.js';
import type { RevocationWatch } from '../openai/revocation-watch.js';
import { anthropicErrorHandler } from './anthropic-errors.js';
import { anthropicModelsRoutes } from './anthropic-models.js';
import { countTokens } from './count-tokens.js';
import { messages } from './messages.js';

export interface AnthropicRoutesOptions {
  readonly gengate: GengateUseCases;
  readonly clientIp: (req: IncomingMessage) => string | null;
  readonly rateLimiter: KeyRateLimiter;
  readonly revocations: RevocationWatch;
  readonly aliases: Readonly<Record<string, string>>;
  readonly keepAliveMs: number;
  readonly maxBodyBytes: number;
}

/** Whether a /v1 request is Anthropic's: the Messages routes, and the model list asked with `anthropic-version`. */
const isAnthropic = (req: Request): boolean => /^\/messages(?:\/|$)/.test(req.path) || (/^\/models(?:\/|$)/.test(req.path) && req.get('anthropic-version') !== undefined);

/**
 * Anthropic's names for the window (https://docs.anthropic.com/en/api/rate-limits#response-headers:
 * `anthropic-ratelimit-requests-limit`, `-remaining`, and `-reset` as an RFC 3339 time).
 */
const anthropicRateLimitHeaders: RateLimitHeaders = (res, w) => {
  res.setHeader('anthropic-ratelimit-requests-limit', String(w.limit));
  res.setHeader('anthropic-ratelimit-requests-remaining', String(w.remaining));
  res.setHeader('anthropic-ratelimit-requests-reset', new Date(Date.now() + w.resetSeconds * 1000).toISOString());
};

/**
 * Anthropic's key header: `x-api-key: <gengate key>` is read as `Authorization: Bearer <key>` (Claude Code
 * and the SDK send x-api-key; `Authorization: Bearer` works as it is).
 */
const apiKeyHeader: RequestHandler = (req, _res, next) => {
  const key = req.get('x-api-key');
  if (key !== undefined && req.headers.authorization === undefined) req.headers.authorization = `Bearer ${key}`;
  next();
};

/**
 * The Anthropic-compatible routes of /v1 (https://docs.anthropic.com/en/api/messages): the same keys,
 * limits, holds, tasks and ledger as the rest of /v1, every error in Anthropic's envelope. Requests that
 * are not Anthropic's pass through to the OpenAI routes untouched. `?beta=true` (Claude Code) is accepted
 * and changes nothing.
 */
export function anthropicRoutes(options: AnthropicRoutesOptions): Router {
  const router = Router();
  router.use((req, _res, next) => (isAnthropic(req) ? next() : next('router')));
  router.use(apiKeyHeader, authenticate(options.gengate, options.clientIp), rateLimit(options.rateLimiter, anthropicRateLimitHeaders));
  router.use(jsonBody(options.maxBodyBytes));
  router
    .route('/messages')
    .post(messages({ gengate: options.gengate, revocations: options.revocations, aliases: options.aliases, keepAliveMs: options.keepAliveMs }))
    .all(methodNotAllowed('POST'));
  router
    .route('/messages/count_tokens')
    .post(countTokens({ gengate: options.gengate, aliases: options.aliases }))
    .all(methodNotAllowed('POST'));
  router.use(anthropicModelsRoutes(options.gengate, options.aliases));
  router.use((req) => {
    throw new GatewayError('not_found', `Unknown request URL: ${req.method} ${req.baseUrl}${req.path.slice(0, 200)}. This gateway serves Anthropic's POST /v1/messages, POST /v1/messages/count_tokens and GET /v1/models.`);
  });
  router.use(anthropicErrorHandler);
  return router;
}
