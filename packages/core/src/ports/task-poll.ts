import type { TaskViewSource } from '../model/task.js';

/**
 * GET /run/tasks/{id}, the call a client repeats until its task ends: the caller's task, read while the
 * caller's API key is checked. `StoreTaskPoll` answers it over the stores; the PostgreSQL host in one
 * statement (the task by id and owner, and whether the key is still active), so that a poll authenticated
 * from the key cache still sees a revocation made by any process at once.
 */
export interface TaskPoll {
  /**
   * The task with this id if it belongs to `userId` (null otherwise): the fields its view needs (a whole
   * TaskRecord will do); `key_revoked` when `apiKeyId` (the key the request was authenticated with, null
   * for a session) is no longer active.
   */
  read(taskId: string, userId: string, apiKeyId: string | null): Promise<TaskViewSource | null | 'key_revoked'>;
}
