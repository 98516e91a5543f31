import type { SessionRecord, SessionStore } from '@gengate/core';
import type { Queryable } from './queryable.js';
import { checkSchemaName } from './schema.js';

interface SessionRow {
  id_hash: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
}

const toSession = (r: SessionRow): SessionRecord => ({ idHash: r.id_hash, userId: r.user_id, createdAt: r.created_at, expiresAt: r.expires_at });

const sessionSql = (schema: string) => ({
  insertToken: `insert into ${schema}.sign_in_tokens (token_hash, email, expires_at) values ($1, $2, $3)`,
  countTokensSince: `select count(*)::int as n from ${schema}.sign_in_tokens where email = $1 and created_at >= $2`,
  consumeToken: `update ${schema}.sign_in_tokens set used_at = $2 where token_hash = $1 and used_at is null and expires_at > $2 returning email`,
  insertSession: `insert into ${schema}.dashboard_sessions (id_hash, user_id, expires_at) values ($1, $2, $3) returning *`,
  findSession: `select * from ${schema}.dashboard_sessions where id_hash = $1 and expires_at > $2`,
  deleteSession: `delete from ${schema}.dashboard_sessions where id_hash = $1`,
  purgeSessions: `delete from ${schema}.dashboard_sessions where expires_at <= $1`,
  purgeTokens: `delete from ${schema}.sign_in_tokens where expires_at <= $1`,
});

/** Sign-in links and dashboard sessions in gengate's schema (`schema`: the name runMigrations used). */
export class PgSessionStore implements SessionStore {
  private readonly sql: ReturnType<typeof sessionSql>;

  constructor(
    private readonly db: Queryable,
    schema: string,
  ) {
    this.sql = sessionSql(checkSchemaName(schema));
  }

  async insertSignInToken(t: { tokenHash: string; email: string; expiresAt: Date }): Promise<void> {
    await this.db.query(this.sql.insertToken, [t.tokenHash, t.email.toLowerCase(), t.expiresAt]);
  }

  async countSignInTokensSince(email: string, since: Date): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(this.sql.countTokensSince, [email.toLowerCase(), since]);
    return rows[0]?.n ?? 0;
  }

  async consumeSignInToken(tokenHash: string, now: Date): Promise<{ email: string } | null> {
    // One statement: of two concurrent uses, the second waits for the first's row lock and then sees used_at set.
    const { rows } = await this.db.query<{ email: string }>(
      this.sql.consumeToken,
      [tokenHash, now],
    );
    return rows[0] ?? null;
  }

  async insertSession(s: { idHash: string; userId: string; expiresAt: Date }): Promise<SessionRecord> {
    const { rows } = await this.db.query<SessionRow>(this.sql.insertSession, [
      s.idHash,
      s.userId,
      s.expiresAt,
    ]);
    return toSession(rows[0] as SessionRow);
  }

  async findSession(idHash: string, now: Date): Promise<SessionRecord | null> {
    const { rows } = await this.db.query<SessionRow>(this.sql.findSession, [idHash, now]);
    return rows[0] ? toSession(rows[0]) : null;
  }

  async deleteSession(idHash: string): Promise<boolean> {
    const { rowCount } = await this.db.query(this.sql.deleteSession, [idHash]);
    return (rowCount ?? 0) > 0;
  }

  async purgeExpired(now: Date): Promise<{ sessions: number; tokens: number }> {
    const s = await this.db.query(this.sql.purgeSessions, [now]);
    const t = await this.db.query(this.sql.purgeTokens, [now]);
    return { sessions: s.rowCount ?? 0, tokens: t.rowCount ?? 0 };
  }
}
