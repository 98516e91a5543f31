import { context, propagation, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { RequestHandler } from 'express';

const headerGetter = {
  keys: (h: Record<string, string | string[] | undefined>) => Object.keys(h),
  get: (h: Record<string, string | string[] | undefined>, key: string) => h[key],
};

/**
 * A SERVER span per HTTP request (the HTTP semantic conventions' attributes), continuing the caller's W3C
 * `traceparent` when it sends one; everything the request does runs inside it. Named `{method} {route}`
 * once the route is known.
 */
export function httpSpanMiddleware(tracer: Tracer): RequestHandler {
  return (req, res, next) => {
    const parent = propagation.extract(context.active(), req.headers, headerGetter);
    const span = tracer.startSpan(
      req.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': req.originalUrl.split('?')[0] ?? '' } },
      parent,
    );
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = (req.route as { path?: unknown } | undefined)?.path;
      if (typeof route === 'string') {
        const template = `${req.baseUrl}${route}`;
        span.setAttribute('http.route', template);
        span.updateName(`${req.method} ${template}`);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(trace.setSpan(parent, span), next);
  };
}
