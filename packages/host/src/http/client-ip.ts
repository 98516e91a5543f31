import type { IncomingMessage } from 'node:http';
import { compileWhitelist } from '@gengate/core/internal';

/**
 * The client address: the socket peer, or, when the peer is a trusted proxy, the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy. Independent of Express's 'trust proxy'
 * setting so the router behaves the same in any host app.
 */
export function createClientIpResolver(trustedProxies: readonly string[]): (req: IncomingMessage) => string | null {
  const trusted = trustedProxies.length > 0 ? compileWhitelist(trustedProxies) : () => false;
  return (req) => {
    const peer = req.socket.remoteAddress ?? null;
    if (peer === null || !trusted(peer)) return peer;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((s) => s.trim()).filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] ?? '';
      if (!trusted(hop)) return hop;
    }
    return hops[0] ?? peer;
  };
}
