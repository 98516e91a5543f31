import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GengateMetrics } from './gengate-metrics.js';

const STARTED = Symbol('gengate.httpStarted');
type Timed = Response & { [STARTED]?: number };

/**
 * Times a request (call it as it arrives) and records it when its response finishes, by method, route
 * pattern (`/api/v1/run/tasks/:id`, never the raw path, so the label set stays small) and status. A
 * request no route matched is `unmatched`. One `finish` listener shared by every response (it reads the
 * response as `this`), the start on the response: nothing allocated per request but the number.
 */
export function requestTimer(metrics: GengateMetrics): (req: Request, res: Response) => void {
  function finished(this: Timed): void {
    const req = this.req;
    const routePath: unknown = (req.route as { path?: unknown } | undefined)?.path;
    const route = typeof routePath === 'string' ? `${req.baseUrl}${routePath}` : 'unmatched';
    metrics.httpDuration.observe({ method: req.method, route, status: String(this.statusCode) }, (performance.now() - (this[STARTED] ?? 0)) / 1000);
  }
  return (_req, res) => {
    (res as Timed)[STARTED] = performance.now();
    // `finish` is emitted once: `on` spares the wrapper `once` allocates per request.
    res.on('finish', finished);
  };
}

/** requestTimer as a middleware: mount it first on the app. */
export function httpMetrics(metrics: GengateMetrics): RequestHandler {
  const time = requestTimer(metrics);
  return (req: Request, res: Response, next: NextFunction) => {
    time(req, res);
    next();
  };
}
