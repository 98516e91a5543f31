import type { IncomingMessage } from 'node:http';
import { createGengateFetchHandler } from '../create-fetch-handler.js';
import type { GengateHttpSurfaces, GengateSurfacePaths } from '../gengate-node-handler.js';

/** What the Hono bridge reads of Hono's Context (taken structurally: Hono is not a dependency of gengate). */
export interface HonoContextLike {
  readonly req: { readonly raw: Request };
  /** On @hono/node-server, `{ incoming, outgoing }`: the Node request, whose socket is the peer. */
  readonly env?: unknown;
}

export interface HonoBridgeOptions<C extends HonoContextLike> extends GengateSurfacePaths {
  /**
   * The address of the peer; default: the socket's remote address on @hono/node-server (`c.env.incoming`),
   * none elsewhere (on Bun: `(c) => c.env.requestIP(c.req.raw)?.address`). X-Forwarded-For is believed
   * only when this peer is one of the host's trusted proxies.
   */
  readonly clientIp?: (c: C) => string | undefined;
}

function nodeServerPeer(c: HonoContextLike): string | undefined {
  const env = c.env;
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return undefined;
  const incoming = (env as { incoming: unknown }).incoming;
  if (typeof incoming !== 'object' || incoming === null || !('socket' in incoming)) return undefined;
  return (incoming as IncomingMessage).socket.remoteAddress;
}

/**
 * gengate as a Hono handler: `const gengate = gengateHono(host)`, then `app.all('/api/v1/*', gengate)`
 * and (with the host's `openai` option) `app.all('/v1/*', gengate)`. The request is `c.req.raw`, so
 * register no body-reading middleware in front of these routes.
 */
export function gengateHono<C extends HonoContextLike>(host: GengateHttpSurfaces, options: HonoBridgeOptions<C> = {}): (c: C) => Promise<Response> {
  const handler = createGengateFetchHandler(host, options);
  const clientIp = options.clientIp ?? nodeServerPeer;
  return (c) => {
    const ip = clientIp(c);
    return handler(c.req.raw, ip === undefined ? {} : { clientIp: ip });
  };
}
