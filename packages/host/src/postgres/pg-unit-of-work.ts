import { UnitOfWorkTaskCompletion, type TaskCompletion, type TaskIntake, type TransactionScope, type UnitOfWork } from '@gengate/core';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { JobWakeups } from '../jobs/job-wakeups.js';
import { PgJobQueue } from '../jobs/pg-job-queue.js';
import { PgAlertStore } from './pg-alert-store.js';
import { PgBillingLedger } from './pg-billing-ledger.js';
import { PgIdempotencyStore } from './pg-idempotency-store.js';
import { PgKeyStore } from './pg-key-store.js';
import { PgTaskCompletion } from './pg-task-completion.js';
import { PgTaskIntake } from './pg-task-intake.js';
import { PgTaskStore } from './pg-task-store.js';
import { PgUserStore } from './pg-user-store.js';
import type { Queryable } from './queryable.js';

function scopeOver(db: Queryable, boss: PgBoss | null, readyNow: (queue: string) => void): TransactionScope {
  return {
    users: new PgUserStore(db),
    keys: new PgKeyStore(db),
    tasks: new PgTaskStore(db),
    ledger: new PgBillingLedger(db),
    alerts: new PgAlertStore(db),
    jobs: new PgJobQueue(boss, db, readyNow),
    idempotency: new PgIdempotencyStore(db),
  };
}

/**
 * The stores on PostgreSQL: `stores` autocommits each statement; `unitOfWork.run` gives a scope bound to
 * one transaction (jobs included, through pg-boss's `db` option). `boss` may be null for processes that
 * never enqueue (the admin CLI). `taskIntake` and `taskCompletion` write a submission and a success in one round trip (pass them to
 * createGengate).
 */
export function createPgStores(
  pool: pg.Pool,
  boss: PgBoss | null,
): { stores: TransactionScope; unitOfWork: UnitOfWork; taskIntake: TaskIntake; taskCompletion: TaskCompletion } {
  const wakeups = new JobWakeups(pool);
  const unitOfWork: UnitOfWork = {
    async run(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const ready = new Set<string>();
        const result = await fn(scopeOver(client, boss, (queue) => ready.add(queue)));
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
  return {
    stores: scopeOver(pool, boss, wake),
    unitOfWork,
    taskIntake: new PgTaskIntake(pool, boss, wake),
    taskCompletion: new PgTaskCompletion(pool, boss, new UnitOfWorkTaskCompletion(unitOfWork), wake),
  };
}
