import type { AlertStore, BalanceAlertRecord } from '@gengate/core';
import { withCaps } from './pg-errors.js';
import { toSafeInt, type Queryable } from './queryable.js';

interface Row {
  id: string;
  user_id: string;
  threshold_micro: string;
  armed: boolean;
  created_at: Date;
}

const toAlert = (r: Row): BalanceAlertRecord => ({
  id: r.id,
  userId: r.user_id,
  thresholdMicro: toSafeInt(r.threshold_micro),
  armed: r.armed,
  createdAt: r.created_at,
});

export class PgAlertStore implements AlertStore {
  constructor(private readonly db: Queryable) {}

  async insert(a: { id: string; userId: string; thresholdMicro: number; armed: boolean }): Promise<BalanceAlertRecord> {
    const { rows } = await withCaps(
      this.db.query<Row>('insert into balance_alerts (id, user_id, threshold_micro, armed) values ($1, $2, $3, $4) returning *', [
        a.id,
        a.userId,
        a.thresholdMicro,
        a.armed,
      ]),
    );
    return toAlert(rows[0] as Row);
  }

  async listForUser(userId: string): Promise<readonly BalanceAlertRecord[]> {
    const { rows } = await this.db.query<Row>('select * from balance_alerts where user_id = $1 order by created_at, id', [userId]);
    return rows.map(toAlert);
  }

  async findById(id: string): Promise<BalanceAlertRecord | null> {
    const { rows } = await this.db.query<Row>('select * from balance_alerts where id = $1', [id]);
    return rows[0] ? toAlert(rows[0]) : null;
  }

  async countForUser(userId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('select count(*)::int as n from balance_alerts where user_id = $1', [userId]);
    return rows[0]?.n ?? 0;
  }

  async delete(id: string, userId: string): Promise<boolean> {
    const { rowCount } = await this.db.query('delete from balance_alerts where id = $1 and user_id = $2', [id, userId]);
    return (rowCount ?? 0) > 0;
  }

  async setArmed(id: string, armed: boolean): Promise<void> {
    await this.db.query('update balance_alerts set armed = $2 where id = $1', [id, armed]);
  }
}
