import express, { type NextFunction, type Request, type RequestHandler } from 'express';
import { GatewayError } from '@gengate/core';
import { bodyParserError, refuseUndecodableBodies } from './body-errors.js';
import { isPlainJsonBody, readPlainJson } from './plain-json-body.js';

/**
 * Parses JSON bodies of POST/PUT/PATCH (other methods' bodies are ignored). Other content types, charsets or
 * content codings get 415, malformed JSON 400 invalid_json, corrupt compressed data 400 invalid_body,
 * oversized 413: every bad body is a 4xx. One handler: a plain body (isPlainJsonBody, what API clients send) is
 * read without body-parser, every other goes through it.
 */
const WITH_BODY: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

export function jsonBody(maxBytes: number): RequestHandler {
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
  const parserError = (err: unknown, req: Request): unknown => bodyParserError(err, req, maxBytes) ?? err;
  const storableText = (req: Request, next: NextFunction): void => {
    const at = req.body === undefined ? null : badTextPath(req.body as unknown, '');
    if (at !== null) {
      next(new GatewayError('invalid_request', `${at || 'The body'}: strings must be valid Unicode text without NUL characters (no \\u0000, no lone surrogate).`, { param: at || null }));
      return;
    }
    next();
  };
  // Every odd body (another type or charset, a content coding, chunked, too large, empty): body-parser,
  // its errors made the gateway's (a 4xx each), then the text check.
  const general: RequestHandler = (req, res, next) =>
    requireJson(req, res, (err?: unknown) => {
      if (err) return next(parserError(err, req));
      if (!WITH_BODY.has(req.method)) return storableText(req, next);
      decodable(req, res, (err2?: unknown) => {
        if (err2) return next(parserError(err2, req));
        json(req, res, (err3?: unknown) => (err3 ? next(parserError(err3, req)) : storableText(req, next)));
      });
    });
  // One handler, not a chain of four: a plain JSON body (the submission's) is read and parsed directly.
  return (req, res, next) => {
    if (!WITH_BODY.has(req.method) || !isPlainJsonBody(req, maxBytes)) return general(req, res, next);
    readPlainJson(req, (outcome) => {
      if ('error' in outcome) return next(parserError({ type: outcome.error }, req));
      req.body = outcome.body;
      // Text decoded from UTF-8 holds neither NUL nor a lone surrogate unless a \u escape wrote one.
      if (outcome.text.includes('\\u')) return storableText(req, next);
      next();
    });
  };
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
