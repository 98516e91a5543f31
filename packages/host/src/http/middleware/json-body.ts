import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { GatewayError } from '@gengate/core';

/** Parses JSON bodies of POST/PUT; other content types get 415, malformed JSON 400, oversized 413. */
export function jsonBody(maxBytes: number): (RequestHandler | ErrorRequestHandler)[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if ((req.method === 'POST' || req.method === 'PUT') && hasBody && !req.is('application/json')) {
      next(new GatewayError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.'));
      return;
    }
    next();
  };
  const parse = express.json({ limit: maxBytes, strict: false });
  const mapErrors: ErrorRequestHandler = (err: { type?: string }, _req, _res, next) => {
    if (err.type === 'entity.parse.failed') next(new GatewayError('invalid_json', 'The body is not valid JSON.'));
    else if (err.type === 'entity.too.large') next(new GatewayError('payload_too_large', `The body is larger than ${maxBytes} bytes.`));
    else next(err);
  };
  return [requireJson, parse, mapErrors];
}
