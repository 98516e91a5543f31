import type { UnitOfWork } from '../ports/stores.js';

/** Ends a waiting or generating task in `fail`, releases its hold and enqueues its callback, in one transaction. */
export class FailTask {
  constructor(private readonly uow: UnitOfWork) {}

  /** False when the task had already ended (then nothing changes). */
  async execute(taskId: string, errorMessage: string): Promise<boolean> {
    return this.uow.run(async (tx) => {
      const task = await tx.tasks.findById(taskId);
      if (!task) return false;
      const ok = await tx.tasks.markFail(taskId, errorMessage, new Date());
      if (!ok) return false;
      await tx.ledger.release(taskId);
      if (task.callbackUrl) await tx.jobs.enqueueCallback(taskId);
      return true;
    });
  }
}
