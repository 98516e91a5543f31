import { GatewayError, isGatewayError } from '@gengate/core';
import type { ErrorRequestHandler, RequestHandler } from 'express';
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

/** The path the gateway's messages name for its API root; a router mounted elsewhere names its own. */
const DEFAULT_API_ROOT = '/api/v1';

/**
 * Remembers where the gateway's router is mounted (`req.baseUrl`, e.g. `/ai`), so that messages naming
 * an endpoint (`GET /api/v1/models`, `POST /api/v1/billing/topup`) name the path the caller used.
 */
export const rememberApiRoot: RequestHandler = (req, res, next) => {
  res.locals['apiRoot'] = req.baseUrl;
  next();
};

/** The message with the default API root replaced by the mount the caller used (when it was remembered). */
export function messageForMount(message: string, apiRoot: unknown): string {
  if (typeof apiRoot !== 'string' || apiRoot === DEFAULT_API_ROOT) return message;
  return message.replace(/(^|[\s(`'"])\/api\/v1(?=\/|[\s.,;:)`'"]|$)/g, (_m, before: string) => `${before}${apiRoot}`);
}

/** The one place an error becomes an HTTP response: `{ code, message, error: { type, param } }`. */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  let error: GatewayError;
  if (isGatewayError(err)) {
    error = err;
  } else {
    const mapped = clientError(err);
    if (mapped) {
      req.log.debug({ err: { message: (err as Error).message } }, 'malformed request'); // the refusal itself is logged by RefusalLog
      error = mapped;
    } else {
      req.log.error({ err }, 'unhandled error');
      error = new GatewayError('internal_error', `Internal error; quote request id ${String(req.id)} when reporting it.`);
    }
  }
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
