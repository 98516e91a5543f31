import type { AlertStore, BalanceAlertRecord } from '@gengate/core';
import { QUEUES } from './boss-queues.js';
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

/** The statements, built once per schema (createPgStores). */
export const alertSql = (schema: string) => ({
  insert: `insert into ${schema}.balance_alerts (id, user_id, threshold_micro, armed) values ($1, $2, $3, $4) returning *`,
  listForUser: `select * from ${schema}.balance_alerts where user_id = $1 order by created_at, id`,
  byId: `select * from ${schema}.balance_alerts where id = $1`,
  countForUser: `select count(*)::int as n from ${schema}.balance_alerts where user_id = $1`,
  delete: `delete from ${schema}.balance_alerts where id = $1 and user_id = $2`,
  setArmed: `update ${schema}.balance_alerts set armed = $2 where id = $1`,
  checkBalance: `select ${schema}.gengate_check_alerts($1, $2) as mails`,
});
export type AlertSql = ReturnType<typeof alertSql>;

export class PgAlertStore implements AlertStore {
  constructor(
    private readonly db: Queryable,
    private readonly sql: AlertSql,
    /** Where its mail jobs go: pg-boss's schema (null: no job queue) and the wake-up of their workers after the commit. */
    private readonly mailJobs: { readonly bossSchema: string | null; readonly readyNow: (queue: string) => void } = { bossSchema: null, readyNow: () => undefined },
  ) {}

  async insert(a: { id: string; userId: string; thresholdMicro: number; armed: boolean }): Promise<BalanceAlertRecord> {
    const { rows } = await withCaps(
      this.db.query<Row>(this.sql.insert, [
        a.id,
        a.userId,
        a.thresholdMicro,
        a.armed,
      ]),
    );
    return toAlert(rows[0] as Row);
  }

  async listForUser(userId: string): Promise<readonly BalanceAlertRecord[]> {
    const { rows } = await this.db.query<Row>(this.sql.listForUser, [userId]);
    return rows.map(toAlert);
  }

  async findById(id: string): Promise<BalanceAlertRecord | null> {
    const { rows } = await this.db.query<Row>(this.sql.byId, [id]);
    return rows[0] ? toAlert(rows[0]) : null;
  }

  async countForUser(userId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(this.sql.countForUser, [userId]);
    return rows[0]?.n ?? 0;
  }

  async delete(id: string, userId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(this.sql.delete, [id, userId]);
    return (rowCount ?? 0) > 0;
  }

  async setArmed(id: string, armed: boolean): Promise<void> {
    await this.db.query(this.sql.setArmed, [id, armed]);
  }

  /** The alert rule as gengate_finish_success applies it (functions/check-alerts.ts), for a balance changed otherwise (a grant, a purchase). */
  async checkBalance(userId: string): Promise<void> {
    const { rows } = await this.db.query<{ mails: number }>(this.sql.checkBalance, [userId, this.mailJobs.bossSchema]);
    if ((rows[0]?.mails ?? 0) > 0) this.mailJobs.readyNow(QUEUES.alertMail);
  }
}
