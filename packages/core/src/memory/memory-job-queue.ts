import type { JobQueue, KeyBudgetMail } from '../ports/stores.js';
import type { MemoryDatabase } from './memory-database.js';

/** Records jobs; a test or the memory runner drains them. */
export class MemoryJobQueue implements JobQueue {
  constructor(private readonly db: MemoryDatabase) {}
  async enqueueGeneration(taskId: string, options?: { startAfterMs?: number; providerId?: string }) {
    const startAfterMs = options?.startAfterMs ?? 0;
    this.db.jobs.push({ queue: 'generate', payload: { taskId, ...(options?.providerId ? { providerId: options.providerId } : {}) }, startAfterMs, availableAt: Date.now() + startAfterMs });
  }
  async enqueueStatusCheck(taskId: string, options: { checkNumber: number; startAfterMs: number; providerId?: string }) {
    this.db.jobs.push({ queue: 'status-check', payload: { taskId, checkNumber: options.checkNumber }, startAfterMs: options.startAfterMs, availableAt: Date.now() + options.startAfterMs });
  }
  async enqueueCallback(taskId: string) {
    this.db.jobs.push({ queue: 'callback', payload: { taskId }, startAfterMs: 0, availableAt: Date.now() });
  }
  async enqueueAlertMail(alertId: string, balanceMicro: number) {
    this.db.jobs.push({ queue: 'alert-mail', payload: { alertId, balanceMicro }, startAfterMs: 0, availableAt: Date.now() });
  }
  async enqueueKeyBudgetMail(keyMail: KeyBudgetMail) {
    this.db.jobs.push({ queue: 'alert-mail', payload: { keyMail }, startAfterMs: 0, availableAt: Date.now() });
  }
}
