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

  private async send(queue: string, data: object, options: { startAfterMs?: number; groupId?: string; groupTier?: string } = {}): Promise<void> {
    if (!this.boss) throw new Error('this process was started without a job queue');
    const delay = options.startAfterMs ?? 0;
    const id = await this.boss.send(queue, data, {
      ...(delay > 0 ? { startAfter: new Date(Date.now() + delay) } : {}),
      ...(options.groupId ? { group: { id: options.groupId, ...(options.groupTier ? { tier: options.groupTier } : {}) } } : {}),
      db: { executeSql: (text, values) => this.db.query(text, values) },
    });
    if (id === null) throw new Error(`pg-boss refused a job for queue ${queue}`);
  }

  enqueueGeneration(taskId: string, options: { startAfterMs?: number; providerId?: string } = {}): Promise<void> {
    // Grouped by provider: workers cap each provider's concurrent calls with pg-boss's groupConcurrency.
    return this.send(QUEUES.generate, { taskId }, {
      ...(options.startAfterMs ? { startAfterMs: options.startAfterMs } : {}),
      ...(options.providerId ? { groupId: options.providerId, groupTier: options.providerId } : {}),
    });
  }

  enqueueStatusCheck(taskId: string, options: { checkNumber: number; startAfterMs: number; providerId?: string }): Promise<void> {
    return this.send(QUEUES.check, { taskId, checkNumber: options.checkNumber }, { startAfterMs: options.startAfterMs, ...(options.providerId ? { groupId: options.providerId } : {}) });
  }

  /**
   * Callback jobs are grouped by the task's user, so the callback worker caps each user's deliveries in
   * flight (one tenant's slow receivers cannot take every slot).
   */
  enqueueCallback(taskId: string, userId: string): Promise<void> {
    return this.send(QUEUES.callback, { taskId }, { groupId: userId });
  }

  enqueueAlertMail(alertId: string, balanceMicro: number): Promise<void> {
    return this.send(QUEUES.alertMail, { alertId, balanceMicro });
  }
}
