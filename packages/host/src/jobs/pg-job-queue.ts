import type { JobQueue } from '@gengate/core';
import type { PgBoss } from 'pg-boss';
import type { Queryable } from '../postgres/queryable.js';
import { QUEUES } from './queues.js';

/** The JobQueue port on pg-boss: jobs are inserted through the caller's connection, so they commit with its transaction. */
export class PgJobQueue implements JobQueue {
  constructor(
    private readonly boss: PgBoss | null,
    private readonly db: Queryable,
  ) {}

  private async send(queue: string, data: object, startAfterSeconds = 0, groupId: string | null = null): Promise<void> {
    if (!this.boss) throw new Error('this process was started without a job queue');
    const id = await this.boss.send(queue, data, {
      ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}),
      ...(groupId ? { group: { id: groupId } } : {}),
      db: { executeSql: (text, values) => this.db.query(text, values) },
    });
    if (id === null) throw new Error(`pg-boss refused a job for queue ${queue}`);
  }

  enqueueGeneration(taskId: string, options?: { startAfterSeconds?: number }): Promise<void> {
    return this.send(QUEUES.generate, { taskId }, options?.startAfterSeconds);
  }

  /**
   * Callback jobs are grouped by the task's user, so the callback worker caps each user's deliveries in
   * flight (one tenant's slow receivers cannot take every slot). The user is read in the caller's
   * transaction, where the task row is.
   */
  async enqueueCallback(taskId: string): Promise<void> {
    const { rows } = await this.db.query<{ user_id: string }>('select user_id from tasks where id = $1', [taskId]);
    return this.send(QUEUES.callback, { taskId }, 0, rows[0]?.user_id ?? null);
  }

  enqueueAlertMail(alertId: string, balanceMicro: number): Promise<void> {
    return this.send(QUEUES.alertMail, { alertId, balanceMicro });
  }
}
