import type { TransactionScope, UnitOfWork } from '@gengate/core';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { PgJobQueue } from '../jobs/pg-job-queue.js';
import { PgAlertStore } from './pg-alert-store.js';
import { PgBillingLedger } from './pg-billing-ledger.js';
import { PgIdempotencyStore } from './pg-idempotency-store.js';
import { PgKeyStore } from './pg-key-store.js';
import { PgTaskStore } from './pg-task-store.js';
import { PgUserStore } from './pg-user-store.js';
import type { Queryable } from './queryable.js';

function scopeOver(db: Queryable, boss: PgBoss | null): TransactionScope {
  return {
    users: new PgUserStore(db),
    keys: new PgKeyStore(db),
    tasks: new PgTaskStore(db),
    ledger: new PgBillingLedger(db),
    alerts: new PgAlertStore(db),
    jobs: new PgJobQueue(boss, db),
    idempotency: new PgIdempotencyStore(db),
  };
}

/**
 * The stores on PostgreSQL: `stores` autocommits each statement; `unitOfWork.run` gives a scope bound to
 * one transaction (jobs included, through pg-boss's `db` option). `boss` may be null for processes that
 * never enqueue (the admin CLI).
 */
export function createPgStores(pool: pg.Pool, boss: PgBoss | null): { stores: TransactionScope; unitOfWork: UnitOfWork } {
  const unitOfWork: UnitOfWork = {
    async run(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await fn(scopeOver(client, boss));
        await client.query('commit');
        return result;
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };
  return { stores: scopeOver(pool, boss), unitOfWork };
}
