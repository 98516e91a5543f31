import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
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

/**
 * One child logger per request, carrying its request id (X-Request-Id in and out). Request headers are
 * not logged at all, so neither the Authorization header nor any API key can reach a log line; result
 * file URLs are logged without their task id (redactUrl). Refused requests (4xx, 503 overloaded) get no
 * line of their own: RefusalLog logs the first of each kind and summarizes the rest, at info, without a
 * stack; a real failure (5xx) is a line at error level with its stack.
 */
export function requestContext(logger: Logger, opts: { readonly refusalSummaryMs?: number } = {}): RequestHandler[] {
  const refusals = refusalLogFor(logger, opts.refusalSummaryMs);
  const http = pinoHttp({
    logger,
    genReqId(req, res) {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (req, res, err) => {
      const refusal = err ? null : RefusalLog.kindOf(res);
      if (refusal !== null) {
        refusals.record(req, res, refusal);
        return 'silent';
      }
      return err || res.statusCode >= 500 ? 'error' : 'info';
    },
  });
  const scoped: RequestHandler = (req, _res, next) => runWithRequestLogger(req.log, next);
  return [http, scoped];
}
