import { fetchFromNode, type FetchHandler } from './fetch-from-node.js';
import { createGengateNodeHandler, type GengateHttpSurfaces, type GengateSurfacePaths } from './gengate-node-handler.js';

/**
 * gengate for any framework that speaks fetch (Hono, Next.js route handlers, Bun, Deno, workers on
 * Node): `(request, { clientIp }) => Promise<Response>` serving the /api/v1 surface at the host's
 * mountPath and, when the host has it, the OpenAI-compatible surface at `/v1`; the same routes,
 * statuses, headers and bodies as `host.router` (it is that router, served in memory: see fetchFromNode).
 * Streams (`/v1/chat/completions` with `stream: true`) arrive chunk by chunk in `Response.body`; an
 * aborted `request.signal` or a cancelled body is a client that went away (an inline call is cut and
 * charged for what was produced). The client IP is `context.clientIp` (the peer), or the X-Forwarded-For
 * hop when that peer is one of the host's trusted proxies (settings.trustProxy).
 */
export function createGengateFetchHandler(host: GengateHttpSurfaces, paths: GengateSurfacePaths = {}): FetchHandler {
  return fetchFromNode(createGengateNodeHandler(host, paths));
}
