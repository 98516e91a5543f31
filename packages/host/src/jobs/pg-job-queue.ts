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

  private async send(queue: string, data: object, startAfterSeconds = 0): Promise<void> {
    if (!this.boss) throw new Error('this process was started without a job queue');
    const id = await this.boss.send(queue, data, {
      ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}),
      db: { executeSql: (text, values) => this.db.query(text, values) },
    });
    if (id === null) throw new Error(`pg-boss refused a job for queue ${queue}`);
  }

  enqueueGeneration(taskId: string, options?: { startAfterSeconds?: number }): Promise<void> {
    return this.send(QUEUES.generate, { taskId }, options?.startAfterSeconds);
  }

  enqueueCallback(taskId: string): Promise<void> {
    return this.send(QUEUES.callback, { taskId });
  }

  enqueueAlertMail(alertId: string, balanceMicro: number): Promise<void> {
    return this.send(QUEUES.alertMail, { alertId, balanceMicro });
  }
}
