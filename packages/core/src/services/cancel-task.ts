import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { ModelRegistry } from '../catalog/model-registry.js';
import { GatewayError } from '../errors/gateway-error.js';
import { InflightCalls } from '../execution/inflight-calls.js';
import type { TaskView } from '../model/task.js';
import type { Logger } from '../ports/system.js';
import type { TaskStore } from '../ports/stores.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import type { AuthContext } from './auth-context.js';
import { FailTask } from './fail-task.js';
import { GetTask } from './get-task.js';

export const CANCELLED_MESSAGE = 'cancelled';

/**
 * POST /run/tasks/{id}/cancel (beyond the interface document): a waiting or generating task ends in
 * `fail` with error_message "cancelled" and its hold released, in one transaction. The worker's call
 * is aborted and a long-running upstream job is asked to stop where the adapter can; a worker finishing
 * anyway cannot charge it (success is only recorded from `generating`) and its files are deleted.
 */
@injectable()
export class CancelTask {
  constructor(
    @inject(TOKENS.TaskStore) private readonly tasks: TaskStore,
    @inject(GetTask) private readonly getTask: GetTask,
    @inject(FailTask) private readonly failTask: FailTask,
    @inject(ModelRegistry) private readonly registry: ModelRegistry,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    @inject(InflightCalls) private readonly inflight: InflightCalls,
  ) {}

  async execute(auth: AuthContext, taskId: string): Promise<TaskView> {
    await this.getTask.record(auth, taskId); // 404 unless the caller may see it (its organization's; a member's own)
    const task = await this.tasks.findById(taskId.toLowerCase());
    if (!task) throw new GatewayError('task_not_found', `No task with id '${taskId}'.`, { param: 'task_id' });
    if (!(await this.failTask.execute(task.id, CANCELLED_MESSAGE))) {
      throw new GatewayError('conflict', `Task ${task.id} has already ended; only waiting or generating tasks can be cancelled.`, { param: 'task_id' });
    }
    // A call this process is making stops now; one in another process stops through the host's task-ended notification.
    this.inflight.abort(task.id, CANCELLED_MESSAGE);
    // The upstream job runs on the task's route (a routed model's task names it; else the model itself).
    const model = this.registry.find(task.routeId ?? task.modelId);
    if (model && task.upstreamHandle !== null) {
      const adapter = this.registry.adapterFor(model.id);
      try {
        await adapter.cancel?.(task.upstreamHandle, {
          taskId: task.id,
          model,
          request: normalizeRunRequest(model, task.request),
          abortSignal: AbortSignal.timeout(10_000),
          readInput: () => Promise.reject(new Error('no inputs are read when cancelling')),
          webhookUrl: null,
        });
      } catch (err) {
        this.logger.warn({ taskId: task.id, err: (err as Error).message }, 'upstream cancel failed; the task is cancelled here anyway');
      }
    }
    return this.getTask.execute(auth, task.id);
  }
}
