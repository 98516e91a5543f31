import type { Request } from 'express';

/**
 * Whether a request comes from a page of this site: `Sec-Fetch-Site` (when the browser sends it) must
 * say same-origin, and `Origin` (sent on every cross-origin request and on same-origin POST/PUT/DELETE),
 * else `Referer`, must be the configured public origin or the origin of the Host the request was sent to.
 * A state-changing request with neither header is refused.
 */
export function isSameOrigin(req: Request, publicOrigin: () => string | null, requireHeader: boolean): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.get('origin') ?? refererOrigin(req.get('referer'));
  if (origin === null || origin === 'null') return !requireHeader && origin === null;
  if (origin === publicOrigin()) return true;
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}

function refererOrigin(referer: string | undefined): string | null {
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}

export const isStateChanging = (method: string): boolean => !['GET', 'HEAD', 'OPTIONS'].includes(method);
