import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestListener } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { inMemoryConnection } from './in-memory-connection.js';
import { webBodyOf } from './web-body.js';

/** Who sent the request, as the framework in front knows it. */
export interface FetchRequestContext {
  /**
   * The address of the peer that connected (the socket's remote address). The handler believes
   * X-Forwarded-For only when this peer is one of the host's trusted proxies (settings.trustProxy), as
   * on Express. Absent: the peer is unknown, and a key with an IP whitelist is refused.
   */
  readonly clientIp?: string;
}

/** A fetch-style handler: a Request in, its Response out (the body streams as it is written). */
export type FetchHandler = (request: Request, context?: FetchRequestContext) => Promise<Response>;

/**
 * Hop-by-hop headers (RFC 9110 section 7.6.1) belong to one connection: the in-memory one here, or the
 * framework's own on the way out, which sets its own.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect']);
/** Statuses whose response has no body (the Fetch standard's null body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function requestHeaders(request: Request, url: URL): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  request.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) headers[name] = value;
  });
  headers['host'] ??= url.host;
  return headers;
}

function responseHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!HOP_BY_HOP.has(name.toLowerCase())) headers.append(name, raw[i + 1] ?? '');
  }
  return headers;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The request was aborted.', 'AbortError');
}

/**
 * Serves fetch Requests with a Node request listener (an Express app), unchanged: each Request is sent
 * by Node's HTTP client to Node's HTTP server over a connection held in memory (no port, no TCP), so the
 * listener gets real `IncomingMessage`/`ServerResponse` objects and behaves exactly as behind a socket:
 * bodies are streamed both ways (a server-sent event reaches `Response.body` when it is written), an
 * aborted `request.signal` or a cancelled `Response.body` closes the connection (the listener sees
 * `close` before `finish`, as when a TCP client goes away), and the peer address is `context.clientIp`.
 */
export function fetchFromNode(listener: RequestListener): FetchHandler {
  const server = createServer(listener);
  return (request, context = {}) => {
    const { signal } = request;
    if (signal.aborted) return Promise.reject(abortReason(signal));
    const url = new URL(request.url);
    const connection = inMemoryConnection({ remoteAddress: context.clientIp, encrypted: url.protocol === 'https:' });
    server.emit('connection', connection.server);
    return new Promise<Response>((resolve, reject) => {
      const outgoing = httpRequest({
        createConnection: () => connection.client,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: requestHeaders(request, url),
      });
      const onAbort = () => outgoing.destroy();
      signal.addEventListener('abort', onAbort, { once: true });
      connection.client.once('close', () => signal.removeEventListener('abort', onAbort));
      outgoing.once('error', (err) => reject(signal.aborted ? abortReason(signal) : err));
      outgoing.once('response', (message) => {
        const init = { status: message.statusCode ?? 500, statusText: message.statusMessage ?? '', headers: responseHeaders(message) };
        if (NULL_BODY.has(init.status) || request.method === 'HEAD') {
          message.resume();
          resolve(new Response(null, init));
          return;
        }
        resolve(new Response(webBodyOf(message), init));
      });
      if (request.body === null) {
        outgoing.end();
      } else {
        pipeline(Readable.fromWeb(request.body as NodeReadableStream<Uint8Array>), outgoing).catch((err: unknown) => {
          outgoing.destroy(err instanceof Error ? err : new Error(String(err)));
        });
      }
    });
  };
}
