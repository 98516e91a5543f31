import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GengateMetrics } from './gengate-metrics.js';

/**
 * Times every request and records it by method, route pattern (`/api/v1/run/tasks/:id`, never the raw
 * path, so the label set stays small) and status. A request no route matched is `unmatched`.
 */
export function httpMetrics(metrics: GengateMetrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const routePath: unknown = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof routePath === 'string' ? `${req.baseUrl}${routePath}` : 'unmatched';
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
    });
    next();
  };
}
