import type { TransactionScope, UnitOfWork } from '@gengate/core';
import { inject, injectable } from 'inversify';
import type pg from 'pg';
import { HOST_TOKENS } from '../host-tokens.js';
import { JobWakeups } from './job-wakeups.js';
import { PgScopes } from './pg-scopes.js';

/**
 * The UnitOfWork on PostgreSQL: `run` gives a scope bound to one transaction (BEGIN/COMMIT on one client
 * of the pool; jobs included, through pg-boss's `db` option), and wakes the workers of the queues that got
 * jobs once it has committed.
 */
@injectable()
export class PgUnitOfWork implements UnitOfWork {
  constructor(
    @inject(HOST_TOKENS.Pool) private readonly pool: pg.Pool,
    @inject(PgScopes) private readonly scopes: PgScopes,
    @inject(JobWakeups) private readonly wakeups: JobWakeups,
  ) {}

  async run<T>(fn: (scope: TransactionScope) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const ready = new Set<string>();
      const committed: (() => void)[] = [];
      const result = await fn(this.scopes.over(client, (queue) => ready.add(queue), (f) => committed.push(f)));
      await client.query('commit');
      for (const queue of ready) this.wakeups.wake(queue);
      for (const f of committed) f();
      return result;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
