import { AsyncResource } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';

/** The Content-Type values (lower-cased) a plain body may carry: JSON, UTF-8 (RFC 8259). */
const PLAIN_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
const DIGITS = /^[0-9]{1,15}$/;

/**
 * Whether a request's body is a plain one: POST/PUT/PATCH, `Content-Type: application/json` (optionally
 * `; charset=utf-8`), no Content-Encoding and no Transfer-Encoding, a Content-Length from 1 to `maxBytes`,
 * and a stream nobody has read yet. Such a body needs none of body-parser's per-request work (parsing the
 * content type twice, charset and coding look-ups, raw-body's stream bookkeeping, iconv): readPlainJson
 * reads it. Any other body goes through jsonBody's general path, which answers every odd case.
 */
export function isPlainJsonBody(req: IncomingMessage, maxBytes: number): boolean {
  const h = req.headers;
  const type = h['content-type'];
  const length = h['content-length'];
  if (type === undefined || length === undefined || h['content-encoding'] !== undefined || h['transfer-encoding'] !== undefined) return false;
  if (!PLAIN_TYPES.has(type.toLowerCase()) || !DIGITS.test(length)) return false;
  const n = Number(length);
  return n > 0 && n <= maxBytes && req.readableFlowing === null && !req.readableEnded && req.readableEncoding === null;
}

/** What readPlainJson found: the parsed value, or why there is none (the general path's error kinds). */
export type PlainJsonOutcome = { readonly body: unknown; readonly text: string } | { readonly error: 'entity.parse.failed' | 'request.aborted' };

/**
 * Reads a plain body (isPlainJsonBody) whole and parses it as body-parser's `json({ strict: false })`
 * does: UTF-8 with a leading byte order mark dropped and malformed sequences read as U+FFFD, an empty
 * text is `{}`. Node's HTTP parser delivers exactly Content-Length bytes, or the request is aborted.
 * `done` runs in the caller's async context (as raw-body's callback does): the request's AsyncLocalStorage
 * stores (its logger scope, a trace) reach the route, not the socket's context that emits 'end'. Through
 * the resource's runInAsyncScope, not AsyncResource.bind / AsyncLocalStorage.bind: their bound function
 * (properties defined on it) made the young generation's collections ~10x costlier in-process.
 */
export function readPlainJson(req: IncomingMessage, callback: (outcome: PlainJsonOutcome) => void): void {
  const scope = new AsyncResource('gengate.PlainJsonBody');
  const done = (outcome: PlainJsonOutcome): void => scope.runInAsyncScope(callback, null, outcome);
  const chunks: Buffer[] = [];
  const cleanup = (): void => {
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('error', onAbort);
    req.removeListener('close', onAbort);
  };
  const onData = (chunk: Buffer): void => void chunks.push(chunk);
  const onAbort = (): void => {
    cleanup();
    done({ error: 'request.aborted' });
  };
  const onEnd = (): void => {
    cleanup();
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    let text = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let body: unknown;
    try {
      body = text.length === 0 ? {} : JSON.parse(text);
    } catch {
      done({ error: 'entity.parse.failed' });
      return;
    }
    done({ body, text });
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onAbort);
  req.on('close', onAbort);
}
