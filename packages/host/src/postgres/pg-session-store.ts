import type { SessionRecord, SessionStore, SignInTokenRecord } from '@gengate/core';
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
  insertToken: `insert into ${schema}.sign_in_tokens (token_hash, email, expires_at, browser_hash) values ($1, $2, $3, $4)`,
  findToken: `select email, browser_hash from ${schema}.sign_in_tokens where token_hash = $1 and used_at is null and expires_at > $2`,
  deleteToken: `delete from ${schema}.sign_in_tokens where token_hash = $1`,
  // One statement: ON CONFLICT DO UPDATE locks the address's row and evaluates the WHERE on its latest
  // version, so concurrent reservations for one address queue on that lock and each sees the others' sends.
  reserveSend: `insert into ${schema}.sign_in_link_sends as s (email, sent_at) values ($1, array[$2::timestamptz])
    on conflict (email) do update
      set sent_at = array(select t from unnest(s.sent_at) as t where t > $3 order by t) || $2::timestamptz
      where (select count(*) from unnest(s.sent_at) as t where t > $3) < $4
    returning 1`,
  releaseSend: `update ${schema}.sign_in_link_sends
    set sent_at = sent_at[:array_position(sent_at, $2::timestamptz) - 1] || sent_at[array_position(sent_at, $2::timestamptz) + 1:]
    where email = $1 and array_position(sent_at, $2::timestamptz) is not null`,
  purgeSends: `delete from ${schema}.sign_in_link_sends where not exists (select 1 from unnest(sent_at) as t where t > $1)`,
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

  async insertSignInToken(t: { tokenHash: string; email: string; expiresAt: Date; browserHash: string | null }): Promise<void> {
    await this.db.query(this.sql.insertToken, [t.tokenHash, t.email.toLowerCase(), t.expiresAt, t.browserHash]);
  }

  async findSignInToken(tokenHash: string, now: Date): Promise<SignInTokenRecord | null> {
    const { rows } = await this.db.query<{ email: string; browser_hash: string | null }>(this.sql.findToken, [tokenHash, now]);
    return rows[0] ? { email: rows[0].email, browserHash: rows[0].browser_hash } : null;
  }

  async deleteSignInToken(tokenHash: string): Promise<void> {
    await this.db.query(this.sql.deleteToken, [tokenHash]);
  }

  async reserveSignInLink(email: string, now: Date, windowStart: Date, max: number): Promise<boolean> {
    if (max < 1) return false;
    const { rowCount } = await this.db.query(this.sql.reserveSend, [email.toLowerCase(), now, windowStart, max]);
    return (rowCount ?? 0) > 0;
  }

  async releaseSignInLink(email: string, at: Date): Promise<void> {
    await this.db.query(this.sql.releaseSend, [email.toLowerCase(), at]);
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

  async purgeExpired(now: Date, windowStart: Date): Promise<{ sessions: number; tokens: number }> {
    const s = await this.db.query(this.sql.purgeSessions, [now]);
    const t = await this.db.query(this.sql.purgeTokens, [now]);
    await this.db.query(this.sql.purgeSends, [windowStart]);
    return { sessions: s.rowCount ?? 0, tokens: t.rowCount ?? 0 };
  }
}
