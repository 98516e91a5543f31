import { inject, injectable } from 'inversify';
import { TOKENS } from '../di/tokens.js';
import { admitQueued, type SchedulingOptions } from '../execution/scheduling.js';
import type { UpstreamMetadata } from '../ports/provider-adapter.js';
import type { UnitOfWork } from '../ports/stores.js';
import { NO_TELEMETRY, type Telemetry } from '../ports/telemetry.js';

/**
 * Ends a waiting or generating task in `fail`: releases its hold, enqueues its callback and admits the
 * user's next queued task, in one transaction.
 */
@injectable()
export class FailTask {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Scheduling) private readonly scheduling: SchedulingOptions,
    @inject(TOKENS.Telemetry) private readonly telemetry: Telemetry = NO_TELEMETRY,
    /** The provider of a model id (for metrics); a model no longer served reports `unknown`. */
    @inject(TOKENS.ProviderOf) private readonly providerOf: (modelId: string) => string | undefined = () => undefined,
  ) {}

  /** False when the task had already ended (then nothing changes). */
  async execute(taskId: string, errorMessage: string, metadata?: UpstreamMetadata): Promise<boolean> {
    const at = new Date();
    const ended = await this.uow.run(async (tx) => {
      const task = await tx.tasks.findById(taskId);
      if (!task) return null;
      const ok = await tx.tasks.markFail(taskId, errorMessage, at, metadata);
      if (!ok) return null;
      await tx.ledger.release(taskId);
      if (task.callbackUrl) await tx.jobs.enqueueCallback(taskId, task.userId);
      await admitQueued(tx, task.userId, task.modality, this.scheduling.maxRunningPerUser[task.modality]);
      return task;
    });
    if (!ended) return false;
    this.telemetry.taskEnded({
      modelId: ended.modelId,
      provider: this.providerOf(ended.modelId) ?? 'unknown',
      outcome: 'fail',
      generationMs: ended.startedAt ? at.getTime() - ended.startedAt.getTime() : null,
    });
    return true;
  }
}
