import { createGengateFetchHandler } from '../create-fetch-handler.js';
import type { FetchHandler } from '../fetch-from-node.js';
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
 * `export const dynamic = 'force-dynamic'` and the Node.js runtime (the default). `host` may be a function
 * returning the host (called once, on the first request): Next.js imports route modules while it builds,
 * when there is no database to start gengate on.
 */
export function nextRouteHandlers(host: GengateHttpSurfaces | (() => Promise<GengateHttpSurfaces>), options: NextBridgeOptions = {}): NextRouteHandlers {
  let handler: Promise<FetchHandler> | null = null;
  const clientIp = options.clientIp;
  const resolved = (): Promise<FetchHandler> => {
    if (!handler) {
      const made = (typeof host === 'function' ? host() : Promise.resolve(host)).then((h) => createGengateFetchHandler(h, options));
      made.catch(() => {
        handler = null; // the next request tries again (e.g. the database was not up yet)
      });
      handler = made;
    }
    return handler;
  };
  const route: NextRouteHandler = async (request) => {
    const ip = clientIp?.(request);
    return (await resolved())(request, ip === undefined ? {} : { clientIp: ip });
  };
  return { GET: route, HEAD: route, POST: route, PUT: route, PATCH: route, DELETE: route, OPTIONS: route };
}
