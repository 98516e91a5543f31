import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { ForbiddenAddressError, guardedLookup, isForbiddenHost } from '@gengate/core/internal';

/** A callback target the address guard refuses (core's ForbiddenAddressError; this name is kept for existing callers). */
export const ForbiddenTargetError = ForbiddenAddressError;
export type ForbiddenTargetError = ForbiddenAddressError;

/** The attempt was cut off by the caller's signal (the process is shutting down), not by the receiver. */
export class AttemptAbortedError extends Error {
  override readonly name = 'AttemptAbortedError';
}

export interface PostResult {
  readonly statusCode: number;
}

export interface PostOptions {
  readonly allowPrivate: boolean;
  /** Total time for the attempt: DNS, connect, request, response headers and body. */
  readonly timeoutMs: number;
  /** Response body bytes read at most; the socket is destroyed past them. Default 64 KiB. */
  readonly maxResponseBytes?: number;
  /** Ends the attempt at once (shutdown). */
  readonly signal?: AbortSignal;
}

export const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs a JSON body, once. Never follows redirects; refuses private targets unless allowed. The attempt
 * cannot stall: one deadline covers everything up to the end of the response body (a receiver that
 * trickles its body or never answers is cut off), at most maxResponseBytes of the body are read, and the
 * socket (never kept alive) is destroyed when the attempt ends, whichever way it ends.
 *
 * A receiver's status counts once its headers arrived: a 2xx whose body then stalls is delivered.
 *
 * node:http rather than undici: undici's headersTimeout/bodyTimeout are idle timers too (a byte every few
 * seconds keeps them waiting), so a total deadline would still need the signal used here; and the address
 * guard is the lookup the socket connects with, which node:http takes as is.
 */
export function postCallback(url: string, body: string, headers: Record<string, string>, opts: PostOptions): Promise<PostResult> {
  const target = new URL(url);
  if (!opts.allowPrivate && isForbiddenHost(target.hostname)) {
    return Promise.reject(new ForbiddenAddressError(`${target.hostname} is a private, loopback or reserved address`));
  }
  if (opts.signal?.aborted) return Promise.reject(new AttemptAbortedError('not sent: the process is shutting down'));
  const client = target.protocol === 'https:' ? https : http;
  const maxBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;

  return new Promise<PostResult>((resolve, reject) => {
    let req: ClientRequest | null = null;
    let res: IncomingMessage | null = null;
    let settled = false;
    const finish = (outcome: { ok: PostResult } | { err: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      opts.signal?.removeEventListener('abort', onAbort);
      // Whatever happened, nothing of this attempt stays open.
      res?.destroy();
      req?.destroy();
      if ('ok' in outcome) resolve(outcome.ok);
      else reject(outcome.err);
    };
    // Once the headers are in, their status stands; a cut-off body does not undo it.
    const cutOff = (err: Error) => finish(res ? { ok: { statusCode: res.statusCode ?? 0 } } : { err });
    const deadline = setTimeout(() => cutOff(new Error(`no complete answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    const onAbort = () => finish({ err: new AttemptAbortedError('cut off: the process is shutting down') });
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    req = client.request(target, {
      method: 'POST',
      agent: false,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'User-Agent': 'gengate-callbacks/1',
        Connection: 'close',
        ...headers,
      },
      lookup: guardedLookup(opts.allowPrivate),
    });
    req.on('response', (response) => {
      res = response;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.byteLength;
        if (read >= maxBytes) finish({ ok: { statusCode: response.statusCode ?? 0 } });
      });
      response.on('end', () => finish({ ok: { statusCode: response.statusCode ?? 0 } }));
      response.on('error', (err) => cutOff(err));
      response.on('close', () => cutOff(new Error('the receiver closed the connection mid-answer')));
    });
    req.on('error', (err) => finish({ err }));
    req.on('close', () => cutOff(new Error('the connection closed before an answer')));
    req.end(body);
  });
}
