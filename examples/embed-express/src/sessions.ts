import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Request } from 'express';
import type pg from 'pg';
import type { AppUser } from './app-database.js';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;
export const SESSION_COOKIE = 'app_session';
const SESSION_TTL_HOURS = 24;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `${salt.toString('hex')}:${(await scrypt(password, salt, 32)).toString('hex')}`;
}

export async function checkPassword(password: string, stored: string): Promise<boolean> {
  const [salt, hash] = stored.split(':');
  if (!salt || !hash) return false;
  const actual = await scrypt(password, Buffer.from(salt, 'hex'), 32);
  return timingSafeEqual(actual, Buffer.from(hash, 'hex'));
}

/** A signed-in browser: the user, and the token its page must send back in X-CSRF-Token. */
export interface Session {
  readonly user: AppUser;
  readonly csrfToken: string;
}

/** Sessions kept in the app's own table: a random token in an HttpOnly, SameSite=Strict cookie; only its hash stored. */
export class SessionStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly secureCookie: boolean,
  ) {}

  /** Starts a session; returns the Set-Cookie value and the CSRF token for the page. */
  async create(userId: string): Promise<{ cookie: string; csrfToken: string }> {
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(24).toString('base64url');
    await this.pool.query(`insert into sessions (token_hash, user_id, csrf_token, expires_at) values ($1, $2, $3, now() + make_interval(hours => $4))`, [
      sha256(token),
      userId,
      csrfToken,
      SESSION_TTL_HOURS,
    ]);
    const cookie = serializeCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: this.secureCookie, path: '/', maxAge: SESSION_TTL_HOURS * 3_600 });
    return { cookie, csrfToken };
  }

  /** The session of a request's cookie, or null. */
  async of(req: Request): Promise<Session | null> {
    const token = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
    if (!token) return null;
    const { rows } = await this.pool.query<{ id: string; email: string; gengate_user_id: string | null; csrf_token: string }>(
      `select u.id::text, u.email, u.gengate_user_id, s.csrf_token
         from sessions s join users u on u.id = s.user_id
        where s.token_hash = $1 and s.expires_at > now()`,
      [sha256(token)],
    );
    const row = rows[0];
    return row ? { user: { id: row.id, email: row.email, gengateUserId: row.gengate_user_id }, csrfToken: row.csrf_token } : null;
  }

  async end(req: Request): Promise<string> {
    const token = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
    if (token) await this.pool.query('delete from sessions where token_hash = $1', [sha256(token)]);
    return serializeCookie(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure: this.secureCookie, path: '/', maxAge: 0 });
  }
}
