import type { KeyBudgetStore } from '@gengate/core';
import { toSafeInt, type Queryable } from './queryable.js';

/** The statements, built once per schema (createPgStores). */
export const keyBudgetSql = (schema: string) => ({
  usage: `select coalesce((select held_micro + charged_micro from ${schema}.key_spend_totals where api_key_id = $1 and period_start = $2), 0) as spent,
            (select count(*)::int from ${schema}.tasks where api_key_id = $1 and status in ('waiting', 'generating')) as active`,
  recordHold: `update ${schema}.holds set api_key_id = $2, key_period_start = $3 where task_id = $1`,
  markSoft: `insert into ${schema}.key_spend (api_key_id, period_start, soft_alerted) values ($1, $2, true)
       on conflict (api_key_id, period_start) do update set soft_alerted = true where not key_spend.soft_alerted returning 1`,
});
export type KeyBudgetSql = ReturnType<typeof keyBudgetSql>;

/**
 * The KeyBudgetStore on PostgreSQL (migration 019): the period's figures are key_spend's, which the
 * triggers on holds and transactions keep; the active tasks are counted (partial index tasks_key_active).
 * gengate_submit_task does the same inside its own statement; this serves the unit-of-work intake and
 * GET /api-keys.
 */
export class PgKeyBudgetStore implements KeyBudgetStore {
  constructor(
    private readonly db: Queryable,
    private readonly sql: KeyBudgetSql,
  ) {}

  async usage(keyId: string, periodStart: Date) {
    const { rows } = await this.db.query<{ spent: string; active: number }>(this.sql.usage, [keyId, periodStart]);
    return { spentMicro: toSafeInt(rows[0]?.spent ?? 0), activeTasks: rows[0]?.active ?? 0 };
  }

  async recordHold(taskId: string, keyId: string, periodStart: Date) {
    await this.db.query(this.sql.recordHold, [taskId, keyId, periodStart]);
  }

  async markSoftThresholdReached(keyId: string, periodStart: Date) {
    const { rows } = await this.db.query(this.sql.markSoft, [keyId, periodStart]);
    return rows.length > 0;
  }
}
