import type { IncomingMessage } from 'node:http';
import type { ApiKeyRecord, AuthContext, Gengate } from '@gengate/core';
import type { Request, RequestHandler, Response } from 'express';

/**
 * A way to authenticate a request other than by API key (the dashboard's session, an embedder's own
 * sign-in). It returns the caller, or null to fall through to the API-key check. It must only accept
 * requests a browser cannot be tricked into sending (e.g. a session cookie together with a CSRF header).
 */
export type RequestAuthenticator = (req: Request) => Promise<AuthContext | null>;

/** The caller of a request: from an API key (with the key's record, for its limits) or from a seam (no key). */
export type RequestAuth = AuthContext & { readonly key?: ApiKeyRecord };

/**
 * Asks the seam first (when given); otherwise reads `Authorization: Bearer <key>` and resolves it
 * (401 unknown/revoked, 403 outside the IP whitelist).
 */
export function authenticate(gengate: Gengate, clientIp: (req: IncomingMessage) => string | null, seam?: RequestAuthenticator): RequestHandler {
  return async (req, res, next) => {
    const viaSeam = seam ? await seam(req) : null;
    if (viaSeam) {
      res.locals['auth'] = { userId: viaSeam.userId, apiKeyId: viaSeam.apiKeyId } satisfies RequestAuth;
    } else {
      const header = req.headers.authorization ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      res.locals['auth'] = (await gengate.authenticate.execute(match?.[1] ?? null, clientIp(req))) satisfies RequestAuth;
    }
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

export function authOf(res: Response): RequestAuth {
  const auth = res.locals['auth'] as RequestAuth | undefined;
  if (!auth) throw new Error('route reached without authentication');
  return auth;
}
