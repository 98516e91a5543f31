import type { AuthContext } from '@gengate/core';
import type { GengateHost } from '@gengate/host';
import type { Request } from 'express';
import type pg from 'pg';
import type { SessionStore } from './sessions.js';

/**
 * gengate's `authenticate` seam for this app: a signed-in browser (session cookie AND the session's
 * CSRF token in X-CSRF-Token, which a page on another site cannot read) acts as the gengate user linked
 * to its app user, created on first use with `signupCredits`. Anything else returns null, and gengate
 * falls through to `Authorization: Bearer <API key>` (machine clients).
 */
export function gengateUserSeam(o: { pool: pg.Pool; sessions: SessionStore; host: () => GengateHost; signupCredits: number }) {
  return async (req: Request): Promise<AuthContext | null> => {
    const session = await o.sessions.of(req);
    if (!session || req.get('x-csrf-token') !== session.csrfToken) return null;
    let userId = session.user.gengateUserId;
    if (!userId) {
      userId = (await o.host().ensureUser({ email: session.user.email, credits: o.signupCredits })).userId;
      await o.pool.query('update users set gengate_user_id = $2 where id = $1 and gengate_user_id is null', [session.user.id, userId]);
    }
    return { userId, apiKeyId: null };
  };
}
