import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { admitQueued, type SchedulingOptions } from '../execution/scheduling.js';
import type { Modality } from '../model/modality.js';
import type { Clock, Logger } from '../ports/system.js';
import type { TaskStore, UnitOfWork } from '../ports/stores.js';
import { FailTask } from './fail-task.js';

export const STUCK_MESSAGE = 'The task did not finish within its deadline and was ended by the gateway; no credits were charged.';

/**
 * The periodic safety net (run by the host's maintenance job): ends tasks stuck past their deadline plus
 * a margin in `fail`, releasing their holds (for instance when a worker died and its job's dead-letter
 * handling failed too), and re-checks the admission of users with queued tasks.
 */
@injectable()
export class SweepTasks {
  constructor(
    @inject(TOKENS.TaskStore) private readonly tasks: TaskStore,
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(FailTask) private readonly failTask: FailTask,
    @inject(TOKENS.Scheduling) private readonly scheduling: SchedulingOptions,
    @inject(TOKENS.DeadlinesMs) private readonly deadlinesMs: Readonly<Record<Modality, number>>,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  async execute(options: { marginMs?: number; admittedGraceMs?: number; batch?: number } = {}): Promise<{ failed: string[]; admitted: string[] }> {
    const overdue = await this.tasks.listOverdue(this.clock.now(), this.deadlinesMs, options.marginMs ?? 5 * 60_000, options.admittedGraceMs ?? 60 * 60_000, options.batch ?? 500);
    const failed: string[] = [];
    for (const task of overdue) if (await this.failTask.execute(task.id, STUCK_MESSAGE)) failed.push(task.id);
    const admitted: string[] = [];
    for (const { userId, modality } of await this.tasks.listQueuedUsers(options.batch ?? 500)) {
      admitted.push(
        ...(await this.uow.run(async (tx) => {
          await tx.ledger.lockAccount(userId);
          return admitQueued(tx, userId, modality, this.scheduling.maxRunningPerUser[modality]);
        })),
      );
    }
    if (failed.length + admitted.length > 0) this.logger.warn({ failed: failed.length, admitted: admitted.length }, 'task sweep repaired tasks');
    return { failed, admitted };
  }
}
