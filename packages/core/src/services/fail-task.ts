import { admitQueued, type SchedulingOptions } from '../execution/scheduling.js';
import type { UpstreamMetadata } from '../ports/provider-adapter.js';
import type { UnitOfWork } from '../ports/stores.js';

/**
 * Ends a waiting or generating task in `fail`: releases its hold, enqueues its callback and admits the
 * user's next queued task, in one transaction.
 */
export class FailTask {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly scheduling: SchedulingOptions,
  ) {}

  /** False when the task had already ended (then nothing changes). */
  async execute(taskId: string, errorMessage: string, metadata?: UpstreamMetadata): Promise<boolean> {
    return this.uow.run(async (tx) => {
      const task = await tx.tasks.findById(taskId);
      if (!task) return false;
      const ok = await tx.tasks.markFail(taskId, errorMessage, new Date(), metadata);
      if (!ok) return false;
      await tx.ledger.release(taskId);
      if (task.callbackUrl) await tx.jobs.enqueueCallback(taskId, task.userId);
      await admitQueued(tx, task.userId, task.modality, this.scheduling.maxRunningPerUser[task.modality]);
      return true;
    });
  }
}
