import { GatewayError, isGatewayError, type ErrorType } from '@gengate/core';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { ERROR_TYPE_LOCAL } from '../refusal-log.js';

/**
 * An error that carries a 4xx status (http-errors, as Express's router raises for a path that does not
 * decode): the client's mistake, never a 500.
 */
function clientError(err: unknown): GatewayError | null {
  if (typeof err !== 'object' || err === null) return null;
  const { status, statusCode } = err as { status?: unknown; statusCode?: unknown };
  const s = typeof status === 'number' ? status : typeof statusCode === 'number' ? statusCode : null;
  if (s === null || s < 400 || s >= 500) return null;
  if (s === 413) return new GatewayError('payload_too_large', 'The request is too large.');
  if (s === 415) return new GatewayError('unsupported_media_type', 'The request body is not in a supported format.');
  return new GatewayError('invalid_request', 'The request is malformed (for example a path or query that does not decode).');
}

/**
 * What any thrown value means in the error catalogue, for every surface (/api/v1, /v1 in OpenAI's and
 * Anthropic's envelopes): a GatewayError as it is, a 4xx from Express or a body parser as the client's
 * mistake, anything else an internal error logged with its stack and answered with the request id.
 */
export function gatewayErrorOf(err: unknown, req: Request): GatewayError {
  if (isGatewayError(err)) return err;
  const mapped = clientError(err);
  if (mapped) {
    req.log.debug({ err: { message: (err as Error).message } }, 'malformed request'); // the refusal itself is logged by RefusalLog
    return mapped;
  }
  req.log.error({ err }, 'unhandled error');
  return new GatewayError('internal_error', `Internal error; quote request id ${String(req.id)} when reporting it.`);
}

/** Refusals that waiting cannot cure: the official SDKs honour `x-should-retry: false` and do not retry them. */
const NOT_RETRYABLE: ReadonlySet<ErrorType> = new Set(['insufficient_credits', 'key_budget_exceeded', 'member_budget_exceeded']);

/** The headers an error is answered with in the SDK-compatible dialects (its own, plus `x-should-retry` where retrying cannot help). */
export function dialectHeadersOf(error: GatewayError): Readonly<Record<string, string>> {
  return NOT_RETRYABLE.has(error.type) ? { ...error.headers, 'x-should-retry': 'false' } : error.headers;
}

/** The path the gateway's messages name for its API root; a router mounted elsewhere names its own. */
const DEFAULT_API_ROOT = '/api/v1';

/**
 * Remembers where the gateway's router is mounted (`req.baseUrl`, e.g. `/ai`), so that messages naming
 * an endpoint (`GET /api/v1/models`, `POST /api/v1/billing/topup`) name the path the caller used.
 */
export function rememberApiRoot(req: Request, res: Response): void {
  res.locals['apiRoot'] = req.baseUrl;
}

/** The message with the default API root replaced by the mount the caller used (when it was remembered). */
export function messageForMount(message: string, apiRoot: unknown): string {
  if (typeof apiRoot !== 'string' || apiRoot === DEFAULT_API_ROOT) return message;
  return message.replace(/(^|[\s(`'"])\/api\/v1(?=\/|[\s.,;:)`'"]|$)/g, (_m, before: string) => `${before}${apiRoot}`);
}

/** The one place an error becomes an HTTP response: `{ code, message, error: { type, param } }`. */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  const error = gatewayErrorOf(err, req);
  if (res.headersSent) return;
  res.locals[ERROR_TYPE_LOCAL] = error.type; // how the request log classes it (RefusalLog)
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  const body = error.toBody();
  res.status(error.status).json({ ...body, message: messageForMount(body.message, res.locals['apiRoot']) });
};

export const notFound: RequestHandler = (req) => {
  throw new GatewayError('not_found', `No endpoint ${req.method} ${req.baseUrl}${req.path.length > 200 ? `${req.path.slice(0, 200)}…` : req.path}.`);
};

/** For `router.route(path).all(methodNotAllowed(...))` after the allowed methods. */
export function methodNotAllowed(...allowed: string[]): RequestHandler {
  return (req, res) => {
    res.setHeader('Allow', allowed.join(', '));
    throw new GatewayError('method_not_allowed', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`);
  };
}
