import type { IncomingMessage } from 'node:http';
import type { Authenticated, Gengate } from '@gengate/core';
import type { RequestHandler, Response } from 'express';

/** Reads `Authorization: Bearer <key>` and resolves it (401 unknown/revoked, 403 outside the IP whitelist). */
export function authenticate(gengate: Gengate, clientIp: (req: IncomingMessage) => string | null): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    res.locals['auth'] = await gengate.authenticate.execute(match?.[1] ?? null, clientIp(req));
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

export function authOf(res: Response): Authenticated {
  const auth = res.locals['auth'] as Authenticated | undefined;
  if (!auth) throw new Error('route reached without authentication');
  return auth;
}
