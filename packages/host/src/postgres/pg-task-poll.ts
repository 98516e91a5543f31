import type { TaskPoll, TaskRecord } from '@gengate/core';
import type { Queryable } from './queryable.js';
import { checkSchemaName } from './schema.js';
import { toTask, type TaskRow } from './pg-task-store.js';

/**
 * The TaskPoll on PostgreSQL: one statement, outside any transaction: the task by id and owner, and
 * whether the request's API key is still active. It answers one row in every case (the task's columns
 * null when the caller has no such task), so a revoked key is told from a missing task.
 */
export class PgTaskPoll implements TaskPoll {
  private readonly sql: string;

  constructor(
    private readonly db: Queryable,
    /** gengate's schema (the name runMigrations used). */
    schema: string,
  ) {
    const s = checkSchemaName(schema);
    this.sql = `select t.*, $3::uuid is not null and not exists (select 1 from ${s}.api_keys k where k.id = $3 and k.revoked_at is null) as key_revoked
      from (values (1)) as one left join ${s}.tasks t on t.id = $1 and t.user_id = $2`;
  }

  async read(taskId: string, userId: string, apiKeyId: string | null): Promise<TaskRecord | null | 'key_revoked'> {
    const { rows } = await this.db.query<TaskRow & { key_revoked: boolean }>(this.sql, [taskId, userId, apiKeyId]);
    const row = rows[0];
    if (row?.key_revoked) return 'key_revoked';
    return row && row.id !== null ? toTask(row) : null;
  }
}
