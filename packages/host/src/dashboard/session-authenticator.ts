import type { AuthContext } from '@gengate/core';
import { csrfTokenMatches, type DashboardAuth, type SessionUser } from '@gengate/core/internal';
import type { Request } from 'express';
import type { RequestAuthenticator } from '../http/middleware/authenticate.js';
import { isSameOrigin, isStateChanging } from './same-origin.js';
import type { SessionCookie } from './session-cookie.js';

export const CSRF_HEADER = 'X-CSRF-Token';

export type SessionCheck =
  | { readonly ok: true; readonly user: SessionUser; readonly secret: string }
  | { readonly ok: false; readonly reason: 'no_session' | 'csrf' };

/**
 * A request's session, accepted only with the session's CSRF token in X-CSRF-Token and from this site's
 * origin: a cookie alone (which a browser attaches to a forged cross-site request) proves nothing.
 */
export async function checkSession(req: Request, auth: DashboardAuth, cookie: SessionCookie, publicOrigin: () => string | null): Promise<SessionCheck> {
  const secret = cookie.read(req);
  const user = secret ? await auth.resolve(secret) : null;
  if (!secret || !user) return { ok: false, reason: 'no_session' };
  if (!csrfTokenMatches(secret, req.get(CSRF_HEADER)) || !isSameOrigin(req, publicOrigin, isStateChanging(req.method))) return { ok: false, reason: 'csrf' };
  return { ok: true, user, secret };
}

/**
 * The /api/v1 seam for the dashboard: a valid session with its CSRF token authenticates the request as
 * its user (no API key); anything less returns null, and the router then requires an API key as always.
 */
export function createSessionAuthenticator(auth: DashboardAuth, cookie: SessionCookie, publicOrigin: () => string | null): RequestAuthenticator {
  return async (req): Promise<AuthContext | null> => {
    if (!req.headers.cookie || req.get(CSRF_HEADER) === undefined) return null;
    const check = await checkSession(req, auth, cookie, publicOrigin);
    return check.ok ? { userId: check.user.userId, apiKeyId: null } : null;
  };
}
