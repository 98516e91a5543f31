import type { IncomingMessage } from 'node:http';
import { GatewayError, type ApiKeyRecord, type AuthContext, type GengateUseCases } from '@gengate/core';
import { CHALLENGE, isUuid } from '@gengate/core/internal';
import type { Request, RequestHandler, Response } from 'express';

/**
 * A way to authenticate a request other than by API key (the dashboard's session, an embedder's own
 * sign-in). It returns the caller, or null to fall through to the API-key check. It must only accept
 * requests a browser cannot be tricked into sending (e.g. a session cookie together with a CSRF header).
 */
export type RequestAuthenticator = (req: Request) => Promise<AuthContext | null>;

/** The caller of a request: from an API key (with the key's record, for its limits) or from a seam (no key). */
export type RequestAuth = AuthContext & { readonly key?: ApiKeyRecord };

/** The seam, and how a person passes it, for the 401 of a request that carries neither it nor a key. */
export interface AuthenticationSeam {
  readonly authenticate: RequestAuthenticator;
  /** E.g. `sign in to the dashboard`; default `sign in`. */
  readonly signInHint?: string;
}

/** Whether a request may be authenticated from the key cache (KeyLookupOptions.acceptCached); default never. */
export type AcceptsCachedKey = (req: Request) => boolean;

/**
 * /api/v1's rule: the hot path, where the key is re-checked anyway, may use the key cache: a submission
 * (`POST /run/{model_id}`: gengate_submit_task re-checks the key under the account lock a revoke takes)
 * and a poll (`GET /run/tasks/{task_id}`: the TaskPoll reads the key's revocation with the task). Every
 * other request looks its key up. A revocation is then seen at once everywhere; what the cache delays
 * (by its TTL, 2 s by default) is a change of a key's IP whitelist or limits made by another process.
 */
export const pollsAndSubmissions: AcceptsCachedKey = (req) => {
  if (req.method === 'GET' || req.method === 'HEAD') return /^\/run\/tasks\/[^/]+\/?$/.test(req.path);
  return req.method === 'POST' && /^\/run\/[^/]+\/?$/.test(req.path) && !/^\/run\/tasks\/?$/.test(req.path);
};

/** The request header that names the organization a request acts on (docs/organizations.md). */
export const ORGANIZATION_HEADER = 'X-Gengate-Organization';

/**
 * The organization `X-Gengate-Organization` names (lower-cased), or null without the header; a value
 * that is not a uuid is a 400 invalid_request.
 */
export function selectedOrganization(req: Request): string | null {
  const value = req.get(ORGANIZATION_HEADER);
  if (value === undefined) return null;
  const id = value.trim();
  if (!isUuid(id)) throw new GatewayError('invalid_request', `${ORGANIZATION_HEADER} must be an organization id (a uuid).`, { param: ORGANIZATION_HEADER });
  return id.toLowerCase();
}

/** 404 organization_not_found: the caller does not act on the organization the request named. */
export function organizationNotFound(id: string): GatewayError {
  return new GatewayError('organization_not_found', `No organization '${id}' is open to this caller (an API key acts in its own organization only).`, {
    param: ORGANIZATION_HEADER,
  });
}

/**
 * Resolves the caller: the seam first (when given); otherwise `Authorization: Bearer <key>` (401
 * unknown/revoked, 403 outside the IP whitelist). With a seam and no key at all, the 401 names both ways
 * in (the host's sign-in and API keys), not the API key alone.
 */
export function callerResolver(
  useCases: Pick<GengateUseCases, 'authenticate'>,
  clientIp: (req: IncomingMessage) => string | null,
  seam?: AuthenticationSeam,
  acceptsCachedKey: AcceptsCachedKey = () => false,
): (req: Request) => Promise<RequestAuth> {
  const byApiKey = useCases.authenticate;
  // A request that names an organization acts on that one or on none: the seam (the dashboard's session)
  // picks it from the header; a key, or a seam that knows no organizations, must already be in it.
  const inNamedOrganization = <A extends AuthContext>(req: Request, auth: A): A => {
    const named = selectedOrganization(req);
    if (named !== null && named !== auth.userId) throw organizationNotFound(named);
    return auth;
  };
  return async (req) => {
    const viaSeam = seam ? await seam.authenticate(req) : null;
    if (viaSeam) {
      return inNamedOrganization(req, { userId: viaSeam.userId, memberId: viaSeam.memberId ?? viaSeam.userId, apiKeyId: viaSeam.apiKeyId });
    }
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (seam && !match) {
      throw new GatewayError(
        'authentication_failed',
        `Not signed in: ${seam.signInHint ?? 'sign in'}, or send an API key in the header Authorization: Bearer <API_KEY>.`,
        { headers: CHALLENGE },
      );
    }
    const auth = await byApiKey.execute(match?.[1] ?? null, clientIp(req), { acceptCached: acceptsCachedKey(req) });
    return req.headers['x-gengate-organization'] === undefined ? auth : inNamedOrganization(req, auth);
  };
}

/** Authenticates every request that reaches it (callerResolver); the caller is in `res.locals.auth`. */
export function authenticate(
  useCases: Pick<GengateUseCases, 'authenticate'>,
  clientIp: (req: IncomingMessage) => string | null,
  seam?: AuthenticationSeam,
  acceptsCachedKey?: AcceptsCachedKey,
): RequestHandler {
  const resolve = callerResolver(useCases, clientIp, seam, acceptsCachedKey);
  return async (req, res, next) => {
    const auth = await resolve(req);
    res.locals['auth'] = auth satisfies RequestAuth;
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

export function authOf(res: Response): RequestAuth {
  const auth = res.locals['auth'] as RequestAuth | undefined;
  if (!auth) throw new Error('route reached without authentication');
  return auth;
}
