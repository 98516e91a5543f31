import { inject, injectable } from 'inversify';
import type { TaskRecord } from '../model/task.js';
import type { KeyStore, TaskStore } from '../ports/stores.js';
import type { TaskPoll } from '../ports/task-poll.js';
import { TOKENS } from '../ports/tokens.js';

/** The TaskPoll over the stores (memory and replaced stores): the key's row, then the task. */
@injectable()
export class StoreTaskPoll implements TaskPoll {
  constructor(
    @inject(TOKENS.TaskStore) private readonly tasks: TaskStore,
    @inject(TOKENS.KeyStore) private readonly keys: KeyStore,
  ) {}

  async read(taskId: string, userId: string, apiKeyId: string | null): Promise<TaskRecord | null | 'key_revoked'> {
    if (apiKeyId !== null && !(await this.keys.findActiveForUser(apiKeyId, userId))) return 'key_revoked';
    return this.tasks.findForUser(taskId, userId);
  }
}
