import type { IncomingMessage } from 'node:http';
import { GatewayError, type ApiKeyRecord, type AuthContext, type GengateUseCases } from '@gengate/core';
import { CHALLENGE } from '@gengate/core/internal';
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

/**
 * Resolves the caller: the seam first (when given); otherwise `Authorization: Bearer <key>` (401
 * unknown/revoked, 403 outside the IP whitelist). With a seam and no key at all, the 401 names both ways
 * in (the host's sign-in and API keys), not the API key alone.
 */
export function callerResolver(useCases: Pick<GengateUseCases, 'authenticate'>, clientIp: (req: IncomingMessage) => string | null, seam?: AuthenticationSeam): (req: Request) => Promise<RequestAuth> {
  const byApiKey = useCases.authenticate;
  return async (req) => {
    const viaSeam = seam ? await seam.authenticate(req) : null;
    if (viaSeam) return { userId: viaSeam.userId, apiKeyId: viaSeam.apiKeyId };
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (seam && !match) {
      throw new GatewayError(
        'authentication_failed',
        `Not signed in: ${seam.signInHint ?? 'sign in'}, or send an API key in the header Authorization: Bearer <API_KEY>.`,
        { headers: CHALLENGE },
      );
    }
    return byApiKey.execute(match?.[1] ?? null, clientIp(req));
  };
}

/** Authenticates every request that reaches it (callerResolver); the caller is in `res.locals.auth`. */
export function authenticate(useCases: Pick<GengateUseCases, 'authenticate'>, clientIp: (req: IncomingMessage) => string | null, seam?: AuthenticationSeam): RequestHandler {
  const resolve = callerResolver(useCases, clientIp, seam);
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
