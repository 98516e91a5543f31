import type { SessionRecord, SessionStore } from '@gengate/core';
import type { Queryable } from './queryable.js';

interface SessionRow {
  id_hash: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
}

const toSession = (r: SessionRow): SessionRecord => ({ idHash: r.id_hash, userId: r.user_id, createdAt: r.created_at, expiresAt: r.expires_at });

export class PgSessionStore implements SessionStore {
  constructor(private readonly db: Queryable) {}

  async insertSignInToken(t: { tokenHash: string; email: string; expiresAt: Date }): Promise<void> {
    await this.db.query('insert into sign_in_tokens (token_hash, email, expires_at) values ($1, $2, $3)', [t.tokenHash, t.email.toLowerCase(), t.expiresAt]);
  }

  async countSignInTokensSince(email: string, since: Date): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('select count(*)::int as n from sign_in_tokens where email = $1 and created_at >= $2', [email.toLowerCase(), since]);
    return rows[0]?.n ?? 0;
  }

  async consumeSignInToken(tokenHash: string, now: Date): Promise<{ email: string } | null> {
    // One statement: of two concurrent uses, the second waits for the first's row lock and then sees used_at set.
    const { rows } = await this.db.query<{ email: string }>(
      'update sign_in_tokens set used_at = $2 where token_hash = $1 and used_at is null and expires_at > $2 returning email',
      [tokenHash, now],
    );
    return rows[0] ?? null;
  }

  async insertSession(s: { idHash: string; userId: string; expiresAt: Date }): Promise<SessionRecord> {
    const { rows } = await this.db.query<SessionRow>('insert into dashboard_sessions (id_hash, user_id, expires_at) values ($1, $2, $3) returning *', [
      s.idHash,
      s.userId,
      s.expiresAt,
    ]);
    return toSession(rows[0] as SessionRow);
  }

  async findSession(idHash: string, now: Date): Promise<SessionRecord | null> {
    const { rows } = await this.db.query<SessionRow>('select * from dashboard_sessions where id_hash = $1 and expires_at > $2', [idHash, now]);
    return rows[0] ? toSession(rows[0]) : null;
  }

  async deleteSession(idHash: string): Promise<boolean> {
    const { rowCount } = await this.db.query('delete from dashboard_sessions where id_hash = $1', [idHash]);
    return (rowCount ?? 0) > 0;
  }

  async purgeExpired(now: Date): Promise<{ sessions: number; tokens: number }> {
    const s = await this.db.query('delete from dashboard_sessions where expires_at <= $1', [now]);
    const t = await this.db.query('delete from sign_in_tokens where expires_at <= $1', [now]);
    return { sessions: s.rowCount ?? 0, tokens: t.rowCount ?? 0 };
  }
}
