import { GatewayError, type ErrorType } from '@gengate/core';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { dialectHeadersOf, gatewayErrorOf } from '../middleware/error-handler.js';

/**
 * OpenAI's error envelope (https://platform.openai.com/docs/guides/error-codes):
 * `{ "error": { "message", "type", "param", "code" } }`, so the official SDKs raise their typed errors
 * (400 BadRequestError, 401 AuthenticationError, 403 PermissionDeniedError, 404 NotFoundError, 409
 * ConflictError, 422 UnprocessableEntityError, 429 RateLimitError, 5xx InternalServerError).
 */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** How each catalogue entry reads in OpenAI's terms: its status, `type` and `code` (gengate's own type is the code where OpenAI has none). */
function dialectOf(type: ErrorType, status: number): { status: number; type: string; code: string } {
  switch (type) {
    case 'authentication_failed':
      return { status, type: 'invalid_request_error', code: 'invalid_api_key' };
    case 'ip_not_allowed':
      return { status, type: 'invalid_request_error', code: 'ip_not_allowed' };
    // OpenAI answers an exhausted balance with 429 insufficient_quota (the SDK's RateLimitError).
    case 'insufficient_credits':
      return { status: 429, type: 'insufficient_quota', code: 'insufficient_quota' };
    // A key's spend limit reads as OpenAI's exhausted quota (a project's budget), with gengate's code.
    case 'key_budget_exceeded':
      return { status: 429, type: 'insufficient_quota', code: 'key_budget_exceeded' };
    // A member's spend limit in the organization, likewise.
    case 'member_budget_exceeded':
      return { status: 429, type: 'insufficient_quota', code: 'member_budget_exceeded' };
    // OpenAI's 403 PermissionDeniedError: the key may not use this model.
    case 'model_not_allowed_for_key':
    case 'provider_not_allowed_for_key':
    case 'modality_not_allowed_for_key':
      return { status: 403, type: 'invalid_request_error', code: type };
    case 'key_concurrency_exceeded':
      return { status: 429, type: 'requests', code: 'key_concurrency_exceeded' };
    case 'model_not_found':
    case 'model_inactive':
      return { status: 404, type: 'invalid_request_error', code: 'model_not_found' };
    case 'rate_limited':
    case 'too_many_tasks':
      return { status, type: 'requests', code: 'rate_limit_exceeded' };
    case 'upstream_error':
      return { status, type: 'server_error', code: 'upstream_error' };
    case 'internal_error':
      return { status, type: 'server_error', code: 'internal_error' };
    case 'overloaded':
    case 'service_unavailable':
      return { status, type: 'server_error', code: type };
    default:
      return { status, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: type };
  }
}

export function openAIErrorOf(error: GatewayError): { status: number; body: OpenAIErrorBody; headers: Readonly<Record<string, string>> } {
  const d = dialectOf(error.type, error.status);
  return { status: d.status, headers: dialectHeadersOf(error), body: { error: { message: error.message, type: d.type, param: error.param, code: d.code } } };
}

export function sendOpenAIError(res: Response, error: GatewayError): void {
  const { status, headers, body } = openAIErrorOf(error);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status).json(body);
}

/** The /v1 surface's one error handler: every error in OpenAI's envelope. */
export const openAIErrorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  const error = gatewayErrorOf(err, req);
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  sendOpenAIError(res, error);
};

export const openAINotFound: RequestHandler = (req) => {
  throw new GatewayError('not_found', `Unknown request URL: ${req.method} ${req.baseUrl}${req.path.slice(0, 200)}. This gateway serves /v1/chat/completions, /v1/responses, /v1/images/generations, /v1/videos and /v1/models.`);
};
