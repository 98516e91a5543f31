import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { TaskView } from '../model/task.js';
import type { ResultUrlResolver } from '../ports/blob-store.js';
import type { TaskStore } from '../ports/stores.js';
import type { AuthContext } from './auth-context.js';
import { toTaskView } from './task-view.js';
import { isUuid } from '../util/uuid.js';

/** GET /run/tasks/{task_id}: the caller's task, or 404 (another user's task is indistinguishable from none). */
@injectable()
export class GetTask {
  constructor(
    @inject(TOKENS.TaskStore) private readonly tasks: TaskStore,
    @inject(TOKENS.ResultUrls) private readonly urls: ResultUrlResolver,
  ) {}

  async execute(auth: AuthContext, taskId: string): Promise<TaskView> {
    const task = isUuid(taskId) ? await this.tasks.findForUser(taskId.toLowerCase(), auth.userId) : null;
    if (!task) throw new GatewayError('task_not_found', `No task with id '${taskId}'.`, { param: 'task_id' });
    return toTaskView(task, this.urls);
  }
}
