import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { Router, type RequestHandler } from 'express';

/** The Swagger UI files the page uses, served from the installed swagger-ui-dist package (no CDN). */
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);

function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/**
 * The page's policy: every script and asset from this origin (no inline script, no eval), the document
 * fetched from this origin, and never framed. Swagger UI sets inline style attributes and uses data:
 * images in its CSS, hence style-src 'unsafe-inline' and img-src data:.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
};

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface ApiReferenceOptions {
  /** Where the page loads the document from; default `/api/v1/openapi.json`. */
  readonly openApiUrl?: string;
}

/**
 * An API reference page (Swagger UI) for the OpenAPI document: `app.use('/docs', createApiReferenceRouter())`.
 * Every asset comes from this server (the swagger-ui-dist package), so it works without internet;
 * the online spec validator badge is off for the same reason. Every answer carries a Content-Security-Policy
 * (same-origin scripts only, `frame-ancestors 'none'`) and X-Frame-Options DENY.
 */
export function createApiReferenceRouter(options: ApiReferenceOptions = {}): Router {
  const openApiUrl = options.openApiUrl ?? '/api/v1/openapi.json';
  const dir = swaggerUiDir();
  const router = Router();
  router.use(securityHeaders);
  router.get('/', (req, res) => {
    const base = escapeHtml(req.baseUrl);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.send(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>gengate API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="${base}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${base}/swagger-ui-bundle.js"></script>
  <script src="${base}/init.js"></script>
</body>
</html>
`);
  });
  router.get('/init.js', (_req, res) => {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.send(
      `window.ui = SwaggerUIBundle(${JSON.stringify({ url: openApiUrl, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, persistAuthorization: false })});\n`,
    );
  });
  router.get('/:asset', (req, res, next) => {
    if (!ASSETS.has(req.params.asset)) return next();
    res.sendFile(join(dir, req.params.asset), { maxAge: '1h' });
  });
  return router;
}
