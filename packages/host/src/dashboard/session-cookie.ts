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

/**
 * The pre-sign-in cookie: a random secret set when this browser asks for a sign-in link (its hash is
 * stored with the link), read when a link is used, so a link opened in the browser that asked for it
 * signs in at once and any other link asks first. HttpOnly, SameSite=Strict, and sent only to the sign-in
 * endpoints (`path`: the mount's /auth); `__Secure-` over https.
 */
export interface SignInCookie {
  read(req: Request): string | null;
  set(res: Response, secret: string, path: string, maxAgeMs: number): void;
  clear(res: Response, path: string): void;
}

export function signInCookie(secure: boolean): SignInCookie {
  const name = secure ? '__Secure-gengate_sign_in' : 'gengate_sign_in';
  const base: CookieOptions = { httpOnly: true, sameSite: 'strict', secure };
  return {
    read(req) {
      const header = req.headers.cookie;
      if (!header) return null;
      return parseCookie(header)[name] ?? null;
    },
    set(res, secret, path, maxAgeMs) {
      res.cookie(name, secret, { ...base, path, expires: new Date(Date.now() + maxAgeMs) });
    },
    clear(res, path) {
      res.clearCookie(name, { ...base, path });
    },
  };
}
