import { randomUUID } from 'node:crypto';
import {
  GatewayError,
  microCreditsToMicroUsd,
  type AccountBalance,
  type BillingLedger,
  type CreditEntry,
  type Page,
  type TransactionRecord,
} from '@gengate/core';
import { withCaps } from './pg-errors.js';
import { toSafeInt, type Queryable } from './queryable.js';

interface TxRow {
  id: string;
  user_id: string;
  credits_micro: string;
  amount_micro_usd: string;
  payment_method: TransactionRecord['paymentMethod'];
  status: TransactionRecord['status'];
  task_id: string | null;
  description: string | null;
  created_at: Date;
}

const toTransaction = (r: TxRow): TransactionRecord => ({
  id: r.id,
  userId: r.user_id,
  creditsMicro: toSafeInt(r.credits_micro),
  amountMicroUsd: toSafeInt(r.amount_micro_usd),
  paymentMethod: r.payment_method,
  status: r.status,
  taskId: r.task_id,
  description: r.description,
  createdAt: r.created_at,
});

/** The statements, built once per schema (createPgStores). */
export const ledgerSql = (schema: string) => ({
  openAccount: `insert into ${schema}.accounts (user_id) values ($1) on conflict do nothing`,
  balance: `select balance_micro, held_micro from ${schema}.account_totals where user_id = $1`,
  lockAccount: `select 1 from ${schema}.accounts where user_id = $1 for update`,
  hold: `with acc as (
         update ${schema}.accounts set held_micro = held_micro + $3
         where user_id = $1 and balance_micro - held_micro >= $3 returning user_id)
       insert into ${schema}.holds (task_id, user_id, amount_micro, state)
       select $2, user_id, $3, 'held' from acc returning task_id`,
  insertUsage: `insert into ${schema}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, task_id, description)
       values ($1, $2, $3, $4, 'usage', 'completed', $5, $6) returning *`,
  settleAccount: `update ${schema}.accounts set balance_micro = balance_micro - $2, held_micro = held_micro - $3 where user_id = $1`,
  releaseAccount: `update ${schema}.accounts set held_micro = held_micro - $2 where user_id = $1`,
  insertEntry: `insert into ${schema}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, description, external_ref)
         values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
  complete: `update ${schema}.transactions set status = 'completed' where id = $1 and status in ('pending', 'failed') and payment_method <> 'usage' returning *`,
  fail: `update ${schema}.transactions set status = 'failed' where id = $1 and status = 'pending' and payment_method <> 'usage' returning *`,
  transactionById: `select * from ${schema}.transactions where id = $1`,
  listTransactions: `select *, count(*) over () as total from ${schema}.transactions where user_id = $1
       order by created_at desc, id desc limit $2 offset $3`,
  countTransactions: `select count(*)::int as n from ${schema}.transactions where user_id = $1`,
  takeHold: `update ${schema}.holds set state = $2, updated_at = now() where task_id = $1 and state = 'held' returning user_id, amount_micro`,
  addToBalance: `update ${schema}.accounts set balance_micro = balance_micro + $2 where user_id = $1`,
});
export type LedgerSql = ReturnType<typeof ledgerSql>;

/**
 * The ledger on PostgreSQL. accounts.balance_micro is kept equal to the sum of the user's completed
 * transactions, and held_micro to the sum of their active holds, once the user's account_pending rows
 * are added (migration 020: a task's end appends there; the balance is read from account_totals); both
 * change only in the statements below, inside the caller's transaction, with the account row locked, or
 * in the SQL functions of migrations 018 and 020. A hold checks the row alone: pending rows only ever
 * raise what is available, so it may refuse early, never overdraw.
 */
export class PgBillingLedger implements BillingLedger {
  constructor(
    private readonly db: Queryable,
    private readonly sql: LedgerSql,
  ) {}

  async openAccount(userId: string): Promise<void> {
    await this.db.query(this.sql.openAccount, [userId]);
  }

  async getBalance(userId: string): Promise<AccountBalance> {
    const { rows } = await this.db.query<{ balance_micro: string; held_micro: string }>(
      this.sql.balance,
      [userId],
    );
    const r = rows[0];
    return r ? { balanceMicro: toSafeInt(r.balance_micro), heldMicro: toSafeInt(r.held_micro) } : { balanceMicro: 0, heldMicro: 0 };
  }

  async lockAccount(userId: string): Promise<void> {
    await this.db.query(this.sql.lockAccount, [userId]);
  }

  async hold(userId: string, taskId: string, amountMicro: number): Promise<void> {
    await this.openAccount(userId);
    // One statement: the held amount and the hold row are written together or not at all.
    const { rows } = await this.db.query<{ task_id: string }>(
      this.sql.hold,
      [userId, taskId, amountMicro],
    );
    if (!rows[0]) {
      throw new GatewayError('insufficient_credits', 'The available balance cannot cover the price of this run; top up with POST /api/v1/billing/topup.');
    }
  }

  async settle(taskId: string, chargeMicro: number, description: string): Promise<TransactionRecord | null> {
    const hold = await this.takeHold(taskId, 'settled');
    if (!hold) return null;
    const charge = Math.min(chargeMicro, hold.amount);
    const { rows } = await this.db.query<TxRow>(
      this.sql.insertUsage,
      [randomUUID(), hold.userId, -charge, microCreditsToMicroUsd(charge), taskId, description],
    );
    await this.db.query(this.sql.settleAccount, [
      hold.userId,
      charge,
      hold.amount,
    ]);
    return toTransaction(rows[0] as TxRow);
  }

  async release(taskId: string): Promise<void> {
    const hold = await this.takeHold(taskId, 'released');
    if (hold) await this.db.query(this.sql.releaseAccount, [hold.userId, hold.amount]);
  }

  async record(e: CreditEntry): Promise<TransactionRecord> {
    await this.openAccount(e.userId);
    const { rows } = await withCaps(
      this.db.query<TxRow>(
        this.sql.insertEntry,
        [randomUUID(), e.userId, e.creditsMicro, e.amountMicroUsd, e.paymentMethod, e.status, e.description, e.externalRef ?? null],
      ),
    );
    if (e.status === 'completed') await this.addToBalance(e.userId, e.creditsMicro);
    return toTransaction(rows[0] as TxRow);
  }

  async complete(transactionId: string): Promise<TransactionRecord | null> {
    const { rows } = await this.db.query<TxRow>(
      this.sql.complete,
      [transactionId],
    );
    const row = rows[0];
    if (!row) return null;
    const t = toTransaction(row);
    await this.addToBalance(t.userId, t.creditsMicro);
    return t;
  }

  async fail(transactionId: string): Promise<TransactionRecord | null> {
    const { rows } = await this.db.query<TxRow>(
      this.sql.fail,
      [transactionId],
    );
    return rows[0] ? toTransaction(rows[0]) : null;
  }

  async findTransaction(id: string): Promise<TransactionRecord | null> {
    const { rows } = await this.db.query<TxRow>(this.sql.transactionById, [id]);
    return rows[0] ? toTransaction(rows[0]) : null;
  }

  async listTransactions(userId: string, page: number, perPage: number): Promise<Page<TransactionRecord>> {
    const { rows } = await this.db.query<TxRow & { total: string }>(
      this.sql.listTransactions,
      [userId, perPage, (page - 1) * perPage],
    );
    let total = rows[0] ? toSafeInt(rows[0].total) : 0;
    if (rows.length === 0 && page > 1) {
      const c = await this.db.query<{ n: number }>(this.sql.countTransactions, [userId]);
      total = c.rows[0]?.n ?? 0;
    }
    return { items: rows.map(toTransaction), total };
  }

  private async takeHold(taskId: string, to: 'settled' | 'released'): Promise<{ userId: string; amount: number } | null> {
    const { rows } = await this.db.query<{ user_id: string; amount_micro: string }>(
      this.sql.takeHold,
      [taskId, to],
    );
    const r = rows[0];
    return r ? { userId: r.user_id, amount: toSafeInt(r.amount_micro) } : null;
  }

  private async addToBalance(userId: string, micro: number): Promise<void> {
    await this.db.query(this.sql.addToBalance, [userId, micro]);
  }
}
