import type { Queryable } from '../postgres/queryable.js';

/**
 * Wakes the pg-boss workers of a queue at once, on pg-boss's own LISTEN channel, after the transaction
 * that added a job has committed.
 *
 * Why not pg-boss's per-queue `notify` (a NOTIFY inside the inserting transaction)? PostgreSQL
 * serializes the commits of all transactions that sent a NOTIFY, WAL flush included, on one
 * database-wide lock: every submission of every user would commit one after another. A NOTIFY sent
 * after the commit, in a transaction of its own that writes nothing, holds that lock only for an instant.
 * The wake-ups of one event-loop turn go out in one statement. A lost wake-up only costs latency:
 * workers also poll.
 */
export class JobWakeups {
  private readonly pending = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly db: Queryable,
    /** pg-boss's schema: its channel is derived from it (pg-boss's notifyChannelSql). */
    private readonly bossSchema: string,
  ) {}

  wake(queue: string): void {
    this.pending.add(queue);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    const queues = [...this.pending];
    this.pending.clear();
    this.scheduled = false;
    this.db
      .query(`select pg_notify('pgboss_' || left(encode(sha224(convert_to($1, 'UTF8')), 'hex'), 24), q) from unnest($2::text[]) q`, [this.bossSchema, queues])
      // Workers poll as well: a wake-up lost to a database error costs latency, not a job.
      .catch(() => undefined);
  }
}
