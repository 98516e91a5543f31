import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { GatewayError } from '@gengate/core';
import { mapBodyErrors, refuseUndecodableBodies } from './body-errors.js';

/**
 * Parses JSON bodies of POST/PUT/PATCH (other methods' bodies are ignored). Other content types, charsets or
 * content codings get 415, malformed JSON 400 invalid_json, corrupt compressed data 400 invalid_body,
 * oversized 413: every bad body is a 4xx.
 */
const WITH_BODY: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

export function jsonBody(maxBytes: number): (RequestHandler | ErrorRequestHandler)[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (WITH_BODY.has(req.method) && hasBody && !req.is('application/json')) {
      next(new GatewayError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.'));
      return;
    }
    next();
  };
  const decodable = refuseUndecodableBodies({ utf8Only: true });
  const json = express.json({ limit: maxBytes, strict: false });
  const onlyPostPut: RequestHandler = (req, res, next) => {
    if (!WITH_BODY.has(req.method)) return next();
    decodable(req, res, (err?: unknown) => (err ? next(err) : json(req, res, next)));
  };
  const storableText: RequestHandler = (req, _res, next) => {
    const at = req.body === undefined ? null : badTextPath(req.body as unknown, '');
    if (at !== null) {
      next(new GatewayError('invalid_request', `${at || 'The body'}: strings must be valid Unicode text without NUL characters (no \\u0000, no lone surrogate).`, { param: at || null }));
      return;
    }
    next();
  };
  return [requireJson, onlyPostPut, mapBodyErrors(maxBytes), storableText];
}

/** NUL or a lone surrogate: PostgreSQL text cannot store U+0000 and jsonb refuses unpaired surrogates. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
function badText(s: string): boolean {
  return s.includes('\u0000') || LONE_SURROGATE.test(s);
}

/**
 * The dotted path of the first string (or object key) that is not storable text, or null. No field of
 * the API has a use for NUL or half a surrogate pair: refused at the edge as the client's mistake.
 */
function badTextPath(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return badText(value) ? path : null;
  if (depth > 64 || typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = badTextPath(v, path ? `${path}.${i}` : String(i), depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    const p = path ? `${path}.${k}` : k;
    if (badText(k)) return path || '';
    const found = badTextPath(v, p, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
