import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { RefusalLog, refusalLogFor } from '../refusal-log.js';
import { runWithRequestLogger } from '../request-log-scope.js';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The URL as logged: a result file URL is a capability (its task id, and signature when URLs expire, are
 * the secret), so its task id and query are replaced; very long URLs are cut.
 */
export function redactUrl(url: string): string {
  const files = /^(.*?\/files\/)[^/?#]*(\/[^?#]*)?/.exec(url);
  const out = files ? `${files[1]}[redacted]${files[2] ?? ''}` : url;
  return out.length > 512 ? `${out.slice(0, 512)}…` : out;
}

declare module 'http' {
  interface IncomingMessage {
    /** The request id (X-Request-Id), set by requestContext. */
    id: string;
    /** The request's child logger (its lines carry `req`: id, method, redacted URL), made on first use. */
    log: Logger;
  }
}

/** Set by a route on its response (`logAnsweredAtDebug`): its end-of-request line is written at debug when it succeeds. */
const ANSWERED_AT_DEBUG = 'gengateAnsweredAtDebug';

/**
 * Makes this request's `request completed` line a debug line when it succeeds (below 400): for the poll,
 * a request a client repeats every second or so for each of its tasks, whose lines at info would be most
 * of the log and most of the logging's cost (docs/deployment.md, "The request log"). Its refusals and
 * failures are logged as any other request's.
 */
export function logAnsweredAtDebug(res: { locals: Record<string, unknown> }): void {
  res.locals[ANSWERED_AT_DEBUG] = true;
}

const LOG = Symbol('gengate.requestLog');
type WithLog = IncomingMessage & { [LOG]?: () => Logger };
/** The request prototypes whose `log` is giveLog's getter. */
const withLogGetter = new WeakSet<object>();

/**
 * Makes `req.log` the request's logger, made on first read by `log`. The getter is defined once on the
 * request's prototype (Express's `app.request`) and reads the request's own `log` function. An accessor
 * defined on each request object (its getter a new function each time) left about 2 KiB per request in
 * the old generation (V8 gives such an object a hidden class of its own) and made every young-generation
 * collection slow: in-process, GC took 20-130 µs per poll instead of 4-8 µs. A route that assigns
 * `req.log` makes it a plain property of that request. A request that already has a `log` of its own
 * (pino-http mounted before the router), or whose prototype has another one, gets the accessor on itself,
 * as before.
 */
function giveLog(req: WithLog, log: () => Logger): void {
  const proto: unknown = Object.getPrototypeOf(req);
  if (typeof proto === 'object' && proto !== null && !Object.hasOwn(req, 'log')) {
    if (withLogGetter.has(proto) || !('log' in proto)) {
      if (!withLogGetter.has(proto)) {
        Object.defineProperty(proto, 'log', {
          get(this: WithLog): Logger | undefined {
            return this[LOG]?.();
          },
          set(this: WithLog, value: unknown) {
            Object.defineProperty(this, 'log', { value, writable: true, configurable: true, enumerable: true });
          },
          configurable: true,
          enumerable: false,
        });
        withLogGetter.add(proto);
      }
      req[LOG] = log;
      return;
    }
  }
  Object.defineProperty(req, 'log', { get: log, configurable: true, enumerable: false });
}

/**
 * One child logger per request, carrying its request id (X-Request-Id in and out), and one line when the
 * request ends: `request completed` at info (at debug for a successful poll: logAnsweredAtDebug;
 * `request aborted` when the client left first, `request errored` at error for a 5xx), with `req` (id, method, URL), `res` (status) and `responseTime`. Request
 * headers are not logged at all, so neither the Authorization header nor any API key can reach a log
 * line; result file URLs are logged without their task id (redactUrl). Refused requests (4xx, 503
 * overloaded) get no line of their own: RefusalLog logs the first of each kind and summarizes the rest, at
 * info, without a stack; a real failure (5xx) is a line at error level with its stack.
 *
 * The lines are pino-http's; the middleware is not, because pino-http builds the request's child logger
 * (serializing and redacting its bindings) for every request, while most requests (a poll) log nothing
 * else: here the child is made on first use (`req.log`, or a use case's line in the request's scope), and
 * the end-of-request line is written by the base logger with the same `req` object.
 */
export function requestContext(logger: Logger, opts: { readonly refusalSummaryMs?: number } = {}): RequestHandler[] {
  return [requestContextHandler(logger, opts)];
}

/** requestContext's one middleware, for a router that calls it from a middleware of its own (createGengateRouter's first). */
export function requestContextHandler(logger: Logger, opts: { readonly refusalSummaryMs?: number } = {}): RequestHandler {
  const refusals = refusalLogFor(logger, opts.refusalSummaryMs);
  // The end-of-request line has a fixed shape (the request id, method and redacted URL, the status, the
  // time) that no redacted field names: written without the path redaction, which cloned and walked
  // `req` and `res` for every request, and without the logger's `log` formatter (createLogger's censoring
  // of secret fields); the `secrets` masking of the stream still applies. A 5xx line carries an error, so
  // it goes through the redacting logger.
  const endLine = logger.child({}, { redact: { paths: [] }, formatters: { log: (line: object) => line } });
  const context: RequestHandler = (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    const started = Date.now();
    const reqFields = { id, method: req.method, url: redactUrl(req.originalUrl || req.url) };
    let child: Logger | null = null;
    const log = (): Logger => (child ??= logger.child({ req: reqFields }));
    giveLog(req, log);
    const ended = (): void => {
      res.removeListener('finish', ended);
      res.removeListener('close', ended);
      const refusal = RefusalLog.kindOf(res);
      if (refusal !== null) {
        refusals.record(req, res, refusal);
        return;
      }
      const atDebug = res.statusCode < 400 && res.locals[ANSWERED_AT_DEBUG] === true;
      if (atDebug && !endLine.isLevelEnabled('debug')) return;
      const line = { req: reqFields, res: { statusCode: res.statusCode }, responseTime: Date.now() - started };
      const msg = !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted';
      if (res.statusCode >= 500) logger.error({ ...line, err: new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
      else if (atDebug) endLine.debug(line, msg);
      else endLine.info(line, msg);
    };
    res.on('finish', ended);
    res.on('close', ended);
    runWithRequestLogger(log, next);
  };
  return context;
}
