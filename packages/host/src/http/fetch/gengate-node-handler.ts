import type { RequestListener } from 'node:http';
import express, { type Router } from 'express';
import { errorHandler, notFound } from '../middleware/error-handler.js';

/** The HTTP surfaces of a gengate host (a GengateHost has them). */
export interface GengateHttpSurfaces {
  /** The /api/v1 surface. */
  readonly router: Router;
  /** The OpenAI-compatible surface, or null when the host was made without the `openai` option. */
  readonly openaiRouter: Router | null;
  /** Where the host's public URLs (result files, webhooks) place the /api/v1 surface. */
  readonly mountPath: string;
}

/** Where the handler serves each surface. */
export interface GengateSurfacePaths {
  /** The /api/v1 surface; default the host's mountPath (`/api/v1` unless set). */
  readonly apiPath?: string;
  /** The OpenAI-compatible surface, when the host has it; default `/v1`; null serves it nowhere. */
  readonly openaiPath?: string | null;
}

function checkPath(name: string, path: string): string {
  const p = path.replace(/\/+$/, '');
  if (p !== '' && !p.startsWith('/')) throw new Error(`${name} must start with "/": ${path}`);
  return p === '' ? '/' : p;
}

/**
 * Both surfaces as one Node request listener, set up as the standalone server sets up its app (no
 * X-Powered-By, no ETag): other paths are answered 404 in gengate's error body. It is the Express app
 * behind the fetch handler and the Node bridges (Fastify); it needs no Express app of yours.
 */
export function createGengateNodeHandler(host: GengateHttpSurfaces, paths: GengateSurfacePaths = {}): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  // API answers are `Cache-Control: no-store`: an ETag would never be used (as in the standalone server).
  app.set('etag', false);
  app.use(checkPath('apiPath', paths.apiPath ?? host.mountPath), host.router);
  const openaiPath = paths.openaiPath === undefined ? '/v1' : paths.openaiPath;
  if (host.openaiRouter && openaiPath !== null) app.use(checkPath('openaiPath', openaiPath), host.openaiRouter);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
