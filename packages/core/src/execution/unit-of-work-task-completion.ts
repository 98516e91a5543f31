import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { checkBalanceAlerts } from '../billing/alert-check.js';
import type { UnitOfWork } from '../ports/stores.js';
import type { EndedTask, TaskCompletion, TaskFailureCompletion, TaskSuccessCompletion } from '../ports/task-completion.js';
import { admitQueued } from './scheduling.js';

/** The TaskCompletion over the fine-grained ports, each end in one unit of work (memory and custom stores). */
@injectable()
export class UnitOfWorkTaskCompletion implements TaskCompletion {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  succeed(c: TaskSuccessCompletion): Promise<boolean> {
    const { task } = c;
    return this.uow.run(async (tx) => {
      if (!(await tx.tasks.markSuccess(task.id, c.success))) return false;
      await tx.ledger.settle(task.id, c.success.chargedMicro, c.chargeDescription);
      await checkBalanceAlerts(tx, task.userId);
      if (task.callbackUrl) await tx.jobs.enqueueCallback(task.id, task.userId);
      await admitQueued(tx, task.userId, task.modality, c.maxRunning);
      return true;
    });
  }

  fail(c: TaskFailureCompletion): Promise<EndedTask | null> {
    return this.uow.run(async (tx) => {
      const task = await tx.tasks.findById(c.taskId);
      if (!task) return null;
      if (!(await tx.tasks.markFail(c.taskId, c.errorMessage, c.at, c.metadata))) return null;
      await tx.ledger.release(c.taskId);
      if (task.callbackUrl) await tx.jobs.enqueueCallback(c.taskId, task.userId);
      await admitQueued(tx, task.userId, task.modality, c.maxRunningPerUser[task.modality]);
      return { modelId: task.modelId, startedAt: task.startedAt };
    });
  }
}
