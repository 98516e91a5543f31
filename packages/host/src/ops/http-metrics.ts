import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GengateMetrics } from './gengate-metrics.js';

/**
 * Times every request and records it by method, route pattern (`/api/v1/run/tasks/:id`, never the raw
 * path, so the label set stays small) and status. A request no route matched is `unmatched`.
 */
export function httpMetrics(metrics: GengateMetrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = performance.now();
    // `finish` is emitted once: `on` spares the wrapper `once` allocates per request.
    res.on('finish', () => {
      const routePath: unknown = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof routePath === 'string' ? `${req.baseUrl}${routePath}` : 'unmatched';
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, (performance.now() - start) / 1000);
    });
    next();
  };
}
