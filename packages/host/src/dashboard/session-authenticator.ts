import type { AuthContext, CallerRoles } from '@gengate/core';
import { csrfTokenMatches, type DashboardAuth, type SessionUser } from '@gengate/core/internal';
import type { Request } from 'express';
import { organizationNotFound, selectedOrganization, type RequestAuthenticator } from '../http/middleware/authenticate.js';
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
 * The session acts on the organization `X-Gengate-Organization` names (404 organization_not_found unless
 * the user is a member of it), or, without the header, on the user's personal organization.
 */
export function createSessionAuthenticator(
  auth: DashboardAuth,
  cookie: SessionCookie,
  publicOrigin: () => string | null,
  roles: Pick<CallerRoles, 'roleIn'>,
): RequestAuthenticator {
  return async (req): Promise<AuthContext | null> => {
    if (!req.headers.cookie || req.get(CSRF_HEADER) === undefined) return null;
    const check = await checkSession(req, auth, cookie, publicOrigin);
    if (!check.ok) return null;
    const userId = check.user.userId;
    const organization = selectedOrganization(req) ?? userId;
    if (organization !== userId && (await roles.roleIn(organization, userId)) === null) throw organizationNotFound(organization);
    return { userId: organization, memberId: userId, apiKeyId: null };
  };
}
