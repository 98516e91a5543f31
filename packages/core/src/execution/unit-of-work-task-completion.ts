import { inject, injectable } from 'inversify';
import { TOKENS } from '../di/tokens.js';
import { checkBalanceAlerts } from '../billing/alert-check.js';
import type { UnitOfWork } from '../ports/stores.js';
import type { TaskCompletion, TaskSuccessCompletion } from '../ports/task-completion.js';
import { admitQueued } from './scheduling.js';

/** The TaskCompletion over the fine-grained ports, in one unit of work. */
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
}
