import type { UserRecord, UserStore } from '@gengate/core';
import type { Queryable } from './queryable.js';

interface Row {
  id: string;
  email: string;
  created_at: Date;
}

const toUser = (r: Row): UserRecord => ({ id: r.id, email: r.email, createdAt: r.created_at });

export class PgUserStore implements UserStore {
  constructor(private readonly db: Queryable) {}

  async insert(u: { id: string; email: string }): Promise<UserRecord> {
    const { rows } = await this.db.query<Row>('insert into users (id, email) values ($1, $2) returning *', [u.id, u.email]);
    return toUser(rows[0] as Row);
  }

  async findById(id: string): Promise<UserRecord | null> {
    const { rows } = await this.db.query<Row>('select * from users where id = $1', [id]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const { rows } = await this.db.query<Row>('select * from users where lower(email) = lower($1)', [email]);
    return rows[0] ? toUser(rows[0]) : null;
  }
}
