import type { TransactionScope } from '@gengate/core';
import { inject, injectable } from 'inversify';
import type { PgBoss } from 'pg-boss';
import { HOST_TOKENS } from '../host-tokens.js';
import { BOSS_SCHEMA } from './boss-queues.js';
import { CachedKeyStore, KeyCache } from './cached-key-store.js';
import { PgAlertStore, alertSql } from './pg-alert-store.js';
import { PgBillingLedger, ledgerSql } from './pg-billing-ledger.js';
import { PgIdempotencyStore, idempotencySql } from './pg-idempotency-store.js';
import { PgJobQueue } from './pg-job-queue.js';
import { PgKeyStore, keySql } from './pg-key-store.js';
import { PgKeyBudgetStore, keyBudgetSql } from './pg-key-budget-store.js';
import { PgMemberBudgetStore, memberBudgetSql } from './pg-member-budget-store.js';
import pg from 'pg';
import { PgTaskClaims } from './pg-task-claims.js';
import { PgTaskStore } from './pg-task-store.js';
import { taskSql } from './sql/tasks.js';
import { PgUserStore, userSql } from './pg-user-store.js';
import { PG_TOKENS } from './postgres-tokens.js';
import type { Queryable } from './queryable.js';
import { checkSchemaName } from './schema.js';
import type { StoreReplacement, StoreReplacements } from './store-replacements.js';

function pick<T>(replacement: StoreReplacement<T> | undefined, db: Queryable, own: () => T): T {
  if (replacement === undefined) return own();
  return typeof replacement === 'function' ? (replacement as (db: Queryable) => T)(db) : replacement;
}

/**
 * Makes the stores of one scope (the pool, or one transaction's client) in gengate's schema, each a
 * replacement when one is given. The statements are built once, here, and shared by every scope. A scope
 * is made per transaction, so the stores inside it are values of that scope, not bindings.
 */
@injectable()
export class PgScopes {
  private readonly sql: ReturnType<typeof statementsFor>;
  /** The worker's task claims over each pool, batched per event-loop turn (never inside a transaction). */
  private readonly claims = new WeakMap<pg.Pool, PgTaskClaims>();

  constructor(
    @inject(HOST_TOKENS.Schema) schema: string,
    @inject(HOST_TOKENS.Boss) private readonly boss: PgBoss | null,
    @inject(PG_TOKENS.StoreReplacements) private readonly replace: StoreReplacements,
    @inject(KeyCache) private readonly keyCache: KeyCache,
  ) {
    this.sql = statementsFor(checkSchemaName(schema));
  }

  /**
   * The stores over `db`; `readyNow` records a queue that got a job, woken once the scope commits;
   * `afterCommit` (inside a transaction) runs a function once it committed (the key cache forgets a
   * revoked key again then).
   */
  over(db: Queryable, readyNow: (queue: string) => void, afterCommit?: (fn: () => void) => void): TransactionScope {
    const { sql, boss } = this;
    const r = this.replace;
    return {
      users: pick(r.users, db, () => new PgUserStore(db, sql.users)),
      keys: pick(r.keys, db, () => new CachedKeyStore(new PgKeyStore(db, sql.keys), this.keyCache, afterCommit)),
      tasks: pick(r.tasks, db, () => new PgTaskStore(db, sql.tasks, db instanceof pg.Pool ? this.claimsOver(db) : undefined)),
      ledger: pick(r.ledger, db, () => new PgBillingLedger(db, sql.ledger)),
      alerts: pick(r.alerts, db, () => new PgAlertStore(db, sql.alerts, { bossSchema: boss ? BOSS_SCHEMA : null, readyNow })),
      jobs: new PgJobQueue(boss, db, readyNow),
      idempotency: pick(r.idempotency, db, () => new PgIdempotencyStore(db, sql.idempotency)),
      keyBudgets: new PgKeyBudgetStore(db, sql.keyBudgets),
      memberBudgets: new PgMemberBudgetStore(db, sql.memberBudgets),
    };
  }

  private claimsOver(pool: pg.Pool): PgTaskClaims {
    let claims = this.claims.get(pool);
    if (!claims) this.claims.set(pool, (claims = new PgTaskClaims(pool, this.sql.tasks)));
    return claims;
  }
}

/** gengate's statements for one schema. */
function statementsFor(schema: string) {
  return { users: userSql(schema), keys: keySql(schema), tasks: taskSql(schema), ledger: ledgerSql(schema), alerts: alertSql(schema), idempotency: idempotencySql(schema), keyBudgets: keyBudgetSql(schema), memberBudgets: memberBudgetSql(schema) };
}
