import type { JobQueue, KeyBudgetMail } from '@gengate/core';
import type { PgBoss } from 'pg-boss';
import type { Queryable } from './queryable.js';
import { QUEUES } from './boss-queues.js';

/**
 * A generation job's pg-boss options: grouped (and tiered) by provider, so workers cap each provider's
 * concurrent calls with pg-boss's groupConcurrency.
 */
export function generationJobOptions(providerId: string): { group: { id: string; tier: string } } {
  return { group: { id: providerId, tier: providerId } };
}

/**
 * The JobQueue port on pg-boss: jobs are inserted through the caller's connection, so they commit with
 * its transaction. `readyNow` hears of each job that can start at once, to wake the queue's workers
 * once it has committed (JobWakeups).
 */
export class PgJobQueue implements JobQueue {
  constructor(
    private readonly boss: PgBoss | null,
    private readonly db: Queryable,
    private readonly readyNow: (queue: string) => void = () => undefined,
  ) {}

  private async send(queue: string, data: object, options: { startAfterMs?: number; group?: { id: string; tier?: string } } = {}): Promise<void> {
    if (!this.boss) throw new Error('this process was started without a job queue');
    const delay = options.startAfterMs ?? 0;
    const id = await this.boss.send(queue, data, {
      ...(delay > 0 ? { startAfter: new Date(Date.now() + delay) } : {}),
      ...(options.group ? { group: options.group } : {}),
      db: { executeSql: (text, values) => this.db.query(text, values) },
    });
    if (id === null) throw new Error(`pg-boss refused a job for queue ${queue}`);
    if (delay <= 0) this.readyNow(queue);
  }

  enqueueGeneration(taskId: string, options: { startAfterMs?: number; providerId?: string } = {}): Promise<void> {
    return this.send(QUEUES.generate, { taskId }, {
      ...(options.startAfterMs ? { startAfterMs: options.startAfterMs } : {}),
      ...(options.providerId ? generationJobOptions(options.providerId) : {}),
    });
  }

  enqueueStatusCheck(taskId: string, options: { checkNumber: number; startAfterMs: number; providerId?: string }): Promise<void> {
    return this.send(QUEUES.check, { taskId, checkNumber: options.checkNumber }, { startAfterMs: options.startAfterMs, ...(options.providerId ? { group: { id: options.providerId } } : {}) });
  }

  /**
   * Callback jobs are grouped by the task's user, so the callback worker caps each user's deliveries in
   * flight (one tenant's slow receivers cannot take every slot).
   */
  enqueueCallback(taskId: string, userId: string): Promise<void> {
    return this.send(QUEUES.callback, { taskId }, { group: { id: userId } });
  }

  enqueueAlertMail(alertId: string, balanceMicro: number): Promise<void> {
    return this.send(QUEUES.alertMail, { alertId, balanceMicro });
  }

  /** On the alert-mail queue: the worker tells the two payloads apart (`keyMail`). */
  enqueueKeyBudgetMail(keyMail: KeyBudgetMail): Promise<void> {
    return this.send(QUEUES.alertMail, { keyMail });
  }
}
