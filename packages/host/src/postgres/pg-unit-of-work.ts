import type { AlertStore, BillingLedger, IdempotencyStore, KeyStore, TaskCompletion, TaskIntake, TaskStore, TransactionScope, UnitOfWork, UserStore } from '@gengate/core';
import { UnitOfWorkTaskCompletion, UnitOfWorkTaskIntake } from '@gengate/core/internal';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { JobWakeups } from './job-wakeups.js';
import { PgJobQueue } from './pg-job-queue.js';
import { BOSS_SCHEMA } from './boss-queues.js';
import { PgAlertStore, alertSql } from './pg-alert-store.js';
import { PgBillingLedger, ledgerSql } from './pg-billing-ledger.js';
import { PgIdempotencyStore, idempotencySql } from './pg-idempotency-store.js';
import { PgKeyStore, keySql } from './pg-key-store.js';
import { PgTaskCompletion } from './pg-task-completion.js';
import { PgTaskIntake } from './pg-task-intake.js';
import { PgTaskStore, taskSql } from './pg-task-store.js';
import { PgUserStore, userSql } from './pg-user-store.js';
import type { Queryable } from './queryable.js';
import { checkSchemaName } from './schema.js';

/**
 * A store that replaces gengate's own. A factory is called with the connection of each scope: the pool
 * for `stores`, and inside `unitOfWork.run` the transaction's client, so a store whose statements use it
 * commits and rolls back with gengate's writes. An instance is used as it is in every scope: its writes
 * are its own, outside gengate's transactions (right for a store on another system, e.g. keys kept by an
 * identity service).
 */
export type StoreReplacement<T> = T | ((db: Queryable) => T);

/** The stores that can be replaced (the job queue is pg-boss's, through the transaction's connection). */
export interface StoreReplacements {
  readonly users?: StoreReplacement<UserStore>;
  readonly keys?: StoreReplacement<KeyStore>;
  readonly tasks?: StoreReplacement<TaskStore>;
  readonly ledger?: StoreReplacement<BillingLedger>;
  readonly alerts?: StoreReplacement<AlertStore>;
  readonly idempotency?: StoreReplacement<IdempotencyStore>;
}

export interface PgStoresOptions {
  /** gengate's schema: the name runMigrations used. */
  readonly schema: string;
  /** Stores to use instead of gengate's own (see StoreReplacement and docs/architecture.md, "SQL and the schema"). */
  readonly replace?: StoreReplacements;
}

/** gengate's statements for one schema, built once by createPgStores and shared by every scope. */
function statementsFor(schema: string) {
  return { users: userSql(schema), keys: keySql(schema), tasks: taskSql(schema), ledger: ledgerSql(schema), alerts: alertSql(schema), idempotency: idempotencySql(schema) };
}

function pick<T>(replacement: StoreReplacement<T> | undefined, db: Queryable, own: () => T): T {
  if (replacement === undefined) return own();
  return typeof replacement === 'function' ? (replacement as (db: Queryable) => T)(db) : replacement;
}

/**
 * The stores on PostgreSQL, in gengate's schema: `stores` autocommits each statement; `unitOfWork.run`
 * gives a scope bound to one transaction (jobs included, through pg-boss's `db` option). `boss` may be
 * null for processes that never enqueue (the admin CLI).
 *
 * `taskIntake` and `taskCompletion` are where the money rules run (pass them to createGengate). With
 * gengate's own stores they are PgTaskIntake and PgTaskCompletion, which only call the SQL functions of
 * migration 018, the rules' one home on PostgreSQL. With any store replaced they are the unit-of-work
 * implementations of the same ports (as for memory stores), so a replacement is what the rules read and
 * write: whether a store is replaced is all this function looks at, never which tables the SQL touches.
 */
export function createPgStores(
  pool: pg.Pool,
  boss: PgBoss | null,
  options: PgStoresOptions,
): { stores: TransactionScope; unitOfWork: UnitOfWork; taskIntake: TaskIntake; taskCompletion: TaskCompletion } {
  const schema = checkSchemaName(options.schema);
  const r = options.replace ?? {};
  const sql = statementsFor(schema);
  const scopeOver = (db: Queryable, readyNow: (queue: string) => void): TransactionScope => ({
    users: pick(r.users, db, () => new PgUserStore(db, sql.users)),
    keys: pick(r.keys, db, () => new PgKeyStore(db, sql.keys)),
    tasks: pick(r.tasks, db, () => new PgTaskStore(db, sql.tasks)),
    ledger: pick(r.ledger, db, () => new PgBillingLedger(db, sql.ledger)),
    alerts: pick(r.alerts, db, () => new PgAlertStore(db, sql.alerts, { bossSchema: boss ? BOSS_SCHEMA : null, readyNow })),
    jobs: new PgJobQueue(boss, db, readyNow),
    idempotency: pick(r.idempotency, db, () => new PgIdempotencyStore(db, sql.idempotency)),
  });
  const wakeups = new JobWakeups(pool);
  const unitOfWork: UnitOfWork = {
    async run(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const ready = new Set<string>();
        const result = await fn(scopeOver(client, (queue) => ready.add(queue)));
        await client.query('commit');
        for (const queue of ready) wakeups.wake(queue);
        return result;
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };
  const wake = (queue: string) => wakeups.wake(queue);
  const replaced = Object.values(r).some((store) => store !== undefined);
  return {
    stores: scopeOver(pool, wake),
    unitOfWork,
    taskIntake: replaced ? new UnitOfWorkTaskIntake(unitOfWork) : new PgTaskIntake(pool, schema, boss),
    taskCompletion: replaced ? new UnitOfWorkTaskCompletion(unitOfWork) : new PgTaskCompletion(pool, schema, boss, (queue, jobs) => wakeups.wake(queue, jobs)),
  };
}
