import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { TaskView } from '../model/task.js';
import type { ResultUrlResolver } from '../ports/blob-store.js';
import type { TaskPoll } from '../ports/task-poll.js';
import type { AuthContext } from './auth-context.js';
import { CHALLENGE } from './authenticate.js';
import { toTaskView } from './task-view.js';
import { isUuid } from '../util/uuid.js';

/**
 * GET /run/tasks/{task_id}: the caller's task, or 404 (another user's task is indistinguishable from none);
 * 401 when the caller's API key was revoked, even if the request was authenticated from the key cache.
 */
@injectable()
export class GetTask {
  constructor(
    @inject(TOKENS.TaskPoll) private readonly poll: TaskPoll,
    @inject(TOKENS.ResultUrls) private readonly urls: ResultUrlResolver,
  ) {}

  async execute(auth: AuthContext, taskId: string): Promise<TaskView> {
    const task = isUuid(taskId) ? await this.poll.read(taskId.toLowerCase(), auth.userId, auth.apiKeyId) : null;
    if (task === 'key_revoked') throw new GatewayError('authentication_failed', 'Invalid or revoked API key.', { headers: CHALLENGE });
    if (!task) throw new GatewayError('task_not_found', `No task with id '${taskId}'.`, { param: 'task_id' });
    return toTaskView(task, this.urls);
  }
}
