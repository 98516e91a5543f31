import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type Response } from 'express';

/** Where `npm run build:dashboard` puts the built dashboard (packages/dashboard/dist), from src/ or dist/ alike. */
// Through import.meta.url, not import.meta.dirname: bundlers (Next.js) provide the former only.
export const DEFAULT_DASHBOARD_ASSETS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../dashboard/dist');

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // Results are served from the gateway's PUBLIC_URL, which may be another origin than the dashboard's.
  "img-src 'self' data: blob: http: https:",
  "media-src 'self' blob: http: https:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

function securityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>gengate dashboard</title></head>
<body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build:dashboard</code> (npm install runs it) and reload.</p></main></body></html>`;

/**
 * Serves the built single-page app: hashed files under assets/ cached for a year, index.html (never
 * cached) for every other path so that deep links such as /dashboard/tasks load the app.
 */
export function staticAssets(dir: string): Router {
  const router = Router();
  const index = join(dir, 'index.html');
  router.use((_req, res, next) => {
    securityHeaders(res);
    next();
  });
  router.use(
    express.static(dir, {
      index: false,
      setHeaders(res, path) {
        res.setHeader('Cache-Control', path.includes(`${join(dir, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    }),
  );
  router.get(/.*/, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    if (!existsSync(index)) {
      res.status(503).type('html').send(NOT_BUILT);
      return;
    }
    res.sendFile(index);
  });
  return router;
}
