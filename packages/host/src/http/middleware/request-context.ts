import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
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
 * file URLs are logged without their task id (redactUrl).
 */
export function requestContext(logger: Logger): RequestHandler[] {
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
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  });
  const scoped: RequestHandler = (req, _res, next) => runWithRequestLogger(req.log, next);
  return [http, scoped];
}
