import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { TaskRecord, TaskView, TaskViewSource } from '../model/task.js';
import type { ResultUrlResolver } from '../ports/blob-store.js';
import type { TaskPoll } from '../ports/task-poll.js';
import type { AuthContext } from './auth-context.js';
import { CallerRoles } from './caller-roles.js';
import { memberOf } from './organizations/role-check.js';
import { NO_ORGANIZATION_STORE } from '../ports/no-organization-store.js';
import { CHALLENGE } from './authenticate.js';
import { toTaskView } from './task-view.js';
import { isUuid } from '../util/uuid.js';

/**
 * GET /run/tasks/{task_id}: the caller's task, or 404 (another organization's task is indistinguishable
 * from none, and so is another member's for a caller whose role is `member`); 401 when the caller's API key
 * was revoked, even if the request was authenticated from the key cache.
 */
@injectable()
export class GetTask {
  constructor(
    @inject(TOKENS.TaskPoll) private readonly poll: TaskPoll,
    @inject(TOKENS.ResultUrls) private readonly urls: ResultUrlResolver,
    @inject(CallerRoles) private readonly roles: CallerRoles = new CallerRoles(NO_ORGANIZATION_STORE),
  ) {}

  async execute(auth: AuthContext, taskId: string): Promise<TaskView> {
    return toTaskView(await this.record(auth, taskId), this.urls);
  }

  /** The task as the caller may see it (the checks of `execute`), as stored. */
  async record(auth: AuthContext, taskId: string): Promise<TaskViewSource> {
    const task = isUuid(taskId) ? await this.poll.read(taskId.toLowerCase(), auth.userId, auth.apiKeyId) : null;
    if (task === 'key_revoked') throw new GatewayError('authentication_failed', 'Invalid or revoked API key.', { headers: CHALLENGE });
    if (!task || !(await this.visible(auth, task))) throw new GatewayError('task_not_found', `No task with id '${taskId}'.`, { param: 'task_id' });
    return task;
  }

  /**
   * Whether the caller may see its organization's task: its submitter always (no statement: the poll stays
   * one), anyone else when their role is owner or admin (one membership read, only then).
   */
  async visible(auth: AuthContext, task: Pick<TaskRecord, 'userId' | 'memberId'>): Promise<boolean> {
    return (task.memberId ?? task.userId) === memberOf(auth) || !(await this.roles.seesOwnOnly(auth));
  }
}
