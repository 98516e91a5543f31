import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { GatewayError } from '@gengate/core';
import { mapBodyErrors, refuseUndecodableBodies } from './body-errors.js';

/**
 * Parses JSON bodies of POST/PUT (other methods' bodies are ignored). Other content types, charsets or
 * content codings get 415, malformed JSON 400 invalid_json, corrupt compressed data 400 invalid_body,
 * oversized 413: every bad body is a 4xx.
 */
export function jsonBody(maxBytes: number): (RequestHandler | ErrorRequestHandler)[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if ((req.method === 'POST' || req.method === 'PUT') && hasBody && !req.is('application/json')) {
      next(new GatewayError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.'));
      return;
    }
    next();
  };
  const decodable = refuseUndecodableBodies({ utf8Only: true });
  const json = express.json({ limit: maxBytes, strict: false });
  const onlyPostPut: RequestHandler = (req, res, next) => {
    if (req.method !== 'POST' && req.method !== 'PUT') return next();
    decodable(req, res, (err?: unknown) => (err ? next(err) : json(req, res, next)));
  };
  return [requireJson, onlyPostPut, mapBodyErrors(maxBytes)];
}
