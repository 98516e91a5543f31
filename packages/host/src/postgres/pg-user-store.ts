import type { UserRecord, UserStore } from '@gengate/core';
import type { Queryable } from './queryable.js';

interface Row {
  id: string;
  email: string;
  created_at: Date;
}

/** The statements, built once per schema (createPgStores). */
export const userSql = (schema: string) => ({
  insert: `insert into ${schema}.users (id, email) values ($1, $2) returning *`,
  byId: `select * from ${schema}.users where id = $1`,
  byEmail: `select * from ${schema}.users where lower(email) = lower($1)`,
});
export type UserSql = ReturnType<typeof userSql>;

const toUser = (r: Row): UserRecord => ({ id: r.id, email: r.email, createdAt: r.created_at });

export class PgUserStore implements UserStore {
  constructor(
    private readonly db: Queryable,
    private readonly sql: UserSql,
  ) {}

  async insert(u: { id: string; email: string }): Promise<UserRecord> {
    const { rows } = await this.db.query<Row>(this.sql.insert, [u.id, u.email]);
    return toUser(rows[0] as Row);
  }

  async findById(id: string): Promise<UserRecord | null> {
    const { rows } = await this.db.query<Row>(this.sql.byId, [id]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const { rows } = await this.db.query<Row>(this.sql.byEmail, [email]);
    return rows[0] ? toUser(rows[0]) : null;
  }
}
