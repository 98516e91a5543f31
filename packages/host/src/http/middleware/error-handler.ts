import { GatewayError, isGatewayError } from '@gengate/core';
import type { ErrorRequestHandler, RequestHandler } from 'express';

/** The one place an error becomes an HTTP response: `{ code, message, error: { type, param } }`. */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  let error: GatewayError;
  if (isGatewayError(err)) {
    error = err;
  } else {
    req.log.error({ err }, 'unhandled error');
    error = new GatewayError('internal_error', `Internal error; quote request id ${String(req.id)} when reporting it.`);
  }
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).json(error.toBody());
};

export const notFound: RequestHandler = (req) => {
  throw new GatewayError('not_found', `No endpoint ${req.method} ${req.baseUrl}${req.path}.`);
};

/** For `router.route(path).all(methodNotAllowed(...))` after the allowed methods. */
export function methodNotAllowed(...allowed: string[]): RequestHandler {
  return (req, res) => {
    res.setHeader('Allow', allowed.join(', '));
    throw new GatewayError('method_not_allowed', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`);
  };
}
