import type { ErrorType, GatewayError } from '@gengate/core';
import type { ErrorRequestHandler, Response } from 'express';
import { dialectHeadersOf, gatewayErrorOf } from '../middleware/error-handler.js';

/**
 * Anthropic's error envelope (https://docs.anthropic.com/en/api/errors):
 * `{ "type": "error", "error": { "type", "message" } }` with its types and statuses: 400
 * invalid_request_error, 401 authentication_error, 402 billing_error, 403 permission_error, 404
 * not_found_error, 413 request_too_large, 429 rate_limit_error, 500 api_error, 529 overloaded_error. The
 * official SDK raises its typed errors from the status (BadRequestError, AuthenticationError, ...).
 */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

/** How each catalogue entry reads in Anthropic's terms: its status and error type. */
function dialectOf(type: ErrorType, status: number): { status: number; type: string } {
  switch (type) {
    case 'authentication_failed':
      return { status: 401, type: 'authentication_error' };
    case 'insufficient_credits':
    case 'key_budget_exceeded':
    case 'member_budget_exceeded':
      return { status: 402, type: 'billing_error' };
    case 'ip_not_allowed':
    case 'model_not_allowed_for_key':
    case 'provider_not_allowed_for_key':
    case 'modality_not_allowed_for_key':
      return { status: 403, type: 'permission_error' };
    case 'key_concurrency_exceeded':
      return { status: 429, type: 'rate_limit_error' };
    case 'model_not_found':
    case 'model_inactive':
    case 'not_found':
      return { status: 404, type: 'not_found_error' };
    case 'payload_too_large':
      return { status: 413, type: 'request_too_large' };
    case 'rate_limited':
    case 'too_many_tasks':
      return { status: 429, type: 'rate_limit_error' };
    // Anthropic's "overloaded" status; its SDK retries it like a 503.
    case 'overloaded':
      return { status: 529, type: 'overloaded_error' };
    case 'upstream_error':
    case 'internal_error':
    case 'service_unavailable':
      return { status, type: 'api_error' };
    default:
      return { status, type: status >= 500 ? 'api_error' : status === 404 ? 'not_found_error' : 'invalid_request_error' };
  }
}

export function anthropicErrorOf(error: GatewayError): { status: number; body: AnthropicErrorBody; headers: Readonly<Record<string, string>> } {
  const d = dialectOf(error.type, error.status);
  const param = error.param !== null && !error.message.includes(error.param) ? ` (${error.param})` : '';
  return { status: d.status, headers: dialectHeadersOf(error), body: { type: 'error', error: { type: d.type, message: `${error.message}${param}` } } };
}

export function sendAnthropicError(res: Response, error: GatewayError): void {
  const { status, headers, body } = anthropicErrorOf(error);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status).json(body);
}

/** The Anthropic routes' one error handler: every error in Anthropic's envelope. */
export const anthropicErrorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  const error = gatewayErrorOf(err, req);
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  sendAnthropicError(res, error);
};
