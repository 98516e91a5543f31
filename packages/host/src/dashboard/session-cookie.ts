import type { CookieOptions, Request, Response } from 'express';
import { parseCookie } from 'cookie';

/** The session cookie: HttpOnly, SameSite=Strict, Path=/ (the /api/v1 seam reads it too), Secure over https. */
export interface SessionCookie {
  /** `__Host-gengate_session` over https (the prefix makes the browser insist on Secure, Path=/ and no Domain). */
  readonly name: string;
  read(req: Request): string | null;
  set(res: Response, secret: string, expiresAt: Date): void;
  clear(res: Response): void;
}

export function sessionCookie(secure: boolean): SessionCookie {
  const name = secure ? '__Host-gengate_session' : 'gengate_session';
  const base: CookieOptions = { httpOnly: true, sameSite: 'strict', secure, path: '/' };
  return {
    name,
    read(req) {
      const header = req.headers.cookie;
      if (!header) return null;
      return parseCookie(header)[name] ?? null;
    },
    set(res, secret, expiresAt) {
      res.cookie(name, secret, { ...base, expires: expiresAt });
    },
    clear(res) {
      res.clearCookie(name, base);
    },
  };
}
