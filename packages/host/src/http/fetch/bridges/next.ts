import { createGengateFetchHandler } from '../create-fetch-handler.js';
import type { GengateHttpSurfaces, GengateSurfacePaths } from '../gengate-node-handler.js';

/** A Next.js App Router route handler (Next's NextRequest is a Request). */
export type NextRouteHandler = (request: Request) => Promise<Response>;

/** The route handlers of one `route.ts`, one per HTTP method gengate serves. */
export interface NextRouteHandlers {
  readonly GET: NextRouteHandler;
  readonly HEAD: NextRouteHandler;
  readonly POST: NextRouteHandler;
  readonly PUT: NextRouteHandler;
  readonly PATCH: NextRouteHandler;
  readonly DELETE: NextRouteHandler;
  readonly OPTIONS: NextRouteHandler;
}

export interface NextBridgeOptions extends GengateSurfacePaths {
  /**
   * The address of the peer. A route handler is not told the socket's address, so the default is none:
   * a key with an IP whitelist is then refused. Behind a proxy you run, return the address it appended
   * (e.g. the last X-Forwarded-For entry); X-Forwarded-For is believed only when this peer is one of the
   * host's trusted proxies.
   */
  readonly clientIp?: (request: Request) => string | undefined;
}

/**
 * gengate as Next.js App Router route handlers, for `app/api/v1/[...path]/route.ts` (and
 * `app/v1/[...path]/route.ts` for the OpenAI-compatible surface):
 * `export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextRouteHandlers(host)`, with
 * `export const dynamic = 'force-dynamic'` and the Node.js runtime (the default).
 */
export function nextRouteHandlers(host: GengateHttpSurfaces, options: NextBridgeOptions = {}): NextRouteHandlers {
  const handler = createGengateFetchHandler(host, options);
  const clientIp = options.clientIp;
  const route: NextRouteHandler = (request) => {
    const ip = clientIp?.(request);
    return handler(request, ip === undefined ? {} : { clientIp: ip });
  };
  return { GET: route, HEAD: route, POST: route, PUT: route, PATCH: route, DELETE: route, OPTIONS: route };
}
