import { GatewayError, isGatewayError } from '@gengate/core';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';

/** Content codings the body parsers decode. */
export const SUPPORTED_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'] as const;

/** The Content-Encoding as sent (repeated headers joined), or null when none. */
function encodingOf(req: Request): string | null {
  const raw = req.headers['content-encoding'];
  if (raw === undefined) return null;
  return Array.isArray(raw) ? raw.join(', ') : raw;
}

/** The charset parameter of Content-Type, lower-cased, or null when none. */
function charsetOf(req: Request): string | null {
  const m = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(req.headers['content-type'] ?? '');
  return m ? (m[1] ?? '').toLowerCase() : null;
}

function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Refuses, before any byte is read, a body the parsers cannot decode: a Content-Encoding other than one
 * of SUPPORTED_ENCODINGS (one coding only: `identity, foo` is refused) and, when `utf8Only`, a charset
 * other than UTF-8 (JSON is UTF-8: RFC 8259). Both are 415 naming what was refused.
 */
export function refuseUndecodableBodies(opts: { utf8Only: boolean }): RequestHandler {
  return (req, _res, next) => {
    if (!hasBody(req)) return next();
    const encoding = encodingOf(req);
    if (encoding !== null && !(SUPPORTED_ENCODINGS as readonly string[]).includes(encoding.trim().toLowerCase())) {
      return next(
        new GatewayError('unsupported_media_type', `Content-Encoding "${encoding.slice(0, 100)}" is not supported; send the body as is or with one of gzip, deflate, br.`, {
          param: 'Content-Encoding',
        }),
      );
    }
    const charset = charsetOf(req);
    if (opts.utf8Only && charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
      return next(new GatewayError('unsupported_media_type', `charset "${charset.slice(0, 40)}" is not supported; JSON bodies are UTF-8.`, { param: 'Content-Type' }));
    }
    next();
  };
}

interface ParserError {
  type?: string;
  status?: number;
  statusCode?: number;
  code?: string;
  charset?: string;
  encoding?: string;
}

/**
 * Turns a body-parser error (its `type`, or a decompression error it passes on with status 400) into the
 * gateway's error; null for an error that is not the client's (a server bug stays a 500).
 */
export function bodyParserError(err: unknown, req: Request, maxBytes: number): GatewayError | null {
  if (typeof err !== 'object' || err === null || isGatewayError(err)) return null;
  const e = err as ParserError;
  const encoding = encodingOf(req) ?? 'identity';
  switch (e.type) {
    case 'entity.parse.failed':
      return new GatewayError('invalid_json', 'The body is not valid JSON.');
    case 'entity.too.large':
      return new GatewayError('payload_too_large', `The body is larger than ${maxBytes} bytes.`);
    case 'encoding.unsupported':
      return new GatewayError('unsupported_media_type', `Content-Encoding "${encoding.slice(0, 100)}" is not supported; use gzip, deflate or br.`, {
        param: 'Content-Encoding',
      });
    case 'charset.unsupported':
      return new GatewayError('unsupported_media_type', `charset "${String(e.charset ?? '').slice(0, 40)}" is not supported; JSON bodies are UTF-8.`, {
        param: 'Content-Type',
      });
    case 'request.aborted':
      return new GatewayError('invalid_body', 'The request was aborted before its body was complete.');
    case 'request.size.invalid':
      return new GatewayError('invalid_body', 'The body is shorter or longer than its Content-Length.');
    case 'entity.verify.failed':
      return new GatewayError('invalid_body', 'The body was refused by its verification.');
    case 'stream.encoding.set':
    case 'stream.not.readable':
      return null; // the server read the stream twice: a bug, not the client's mistake
  }
  const status = e.status ?? e.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    // Decompression errors (zlib's Z_DATA_ERROR, Z_BUF_ERROR, brotli's errors) arrive without a type.
    return new GatewayError('invalid_body', `The body could not be decoded as Content-Encoding "${encoding.slice(0, 100)}" (corrupt or truncated data).`);
  }
  return null;
}

/** The error middleware after a body parser. */
export function mapBodyErrors(maxBytes: number): ErrorRequestHandler {
  return (err: unknown, req, _res, next) => next(bodyParserError(err, req, maxBytes) ?? err);
}
