import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import type { SchedulingOptions } from '../execution/scheduling.js';
import type { UpstreamMetadata } from '../ports/provider-adapter.js';
import type { TaskCompletion } from '../ports/task-completion.js';
import { NO_TELEMETRY, type Telemetry } from '../ports/telemetry.js';

/**
 * Ends a waiting or generating task in `fail`: releases its hold, enqueues its callback and admits the
 * user's next queued task, in one transaction (TaskCompletion.fail, where those rules live).
 */
@injectable()
export class FailTask {
  constructor(
    @inject(TOKENS.TaskCompletion) private readonly completion: TaskCompletion,
    @inject(TOKENS.Scheduling) private readonly scheduling: SchedulingOptions,
    @inject(TOKENS.Telemetry) private readonly telemetry: Telemetry = NO_TELEMETRY,
    /** The provider of a model id (for metrics); a model no longer served reports `unknown`. */
    @inject(TOKENS.ProviderOf) private readonly providerOf: (modelId: string) => string | undefined = () => undefined,
  ) {}

  /** False when the task had already ended (then nothing changes). */
  async execute(taskId: string, errorMessage: string, metadata?: UpstreamMetadata): Promise<boolean> {
    const at = new Date();
    const ended = await this.completion.fail({
      taskId,
      errorMessage,
      at,
      ...(metadata !== undefined ? { metadata } : {}),
      maxRunningPerUser: this.scheduling.maxRunningPerUser,
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
