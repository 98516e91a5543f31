import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * `Authorization: Bearer <METRICS_TOKEN>` for /metrics: 401 with `WWW-Authenticate` otherwise. The token
 * is compared in constant time (as SHA-256 digests, so its length does not show either).
 */
export function requireMetricsToken(token: string): RequestHandler {
  const expected = digest(token);
  return (req, res, next) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (m?.[1] && timingSafeEqual(digest(m[1]), expected)) return next();
    res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
    res.setHeader('Cache-Control', 'no-store');
    res.status(401).json({ code: 401, message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.', error: { type: 'authentication_failed', param: null } });
  };
}
