import type { TaskPoll, TaskViewSource } from '@gengate/core';
import type { Queryable } from './queryable.js';
import { checkSchemaName } from './schema.js';
import { fromAttemptRow, type TaskRow } from './pg-task-store.js';

/**
 * The columns a poll reads: those of the task's view (TaskViewSource), not the whole row. Every task column
 * is null when the caller has no such task (the left join): `id` says which.
 */
type PollRow = Pick<TaskRow, 'model_id' | 'status' | 'outputs' | 'error_message' | 'progress' | 'created_at'> & {
  id: string | null;
  route_id: string | null;
  route_attempts: TaskRow['route_attempts'] | null;
  /** The request's routing fields (`request -> 'provider'`, `request -> 'models'`): null when absent. */
  request_provider: NonNullable<TaskViewSource['request']['provider']> | null;
  request_models: NonNullable<TaskViewSource['request']['models']> | null;
  key_revoked: boolean;
};

/**
 * The TaskPoll on PostgreSQL: one statement, outside any transaction: the task by id and owner, and
 * whether the request's API key is still active. It answers one row in every case (the task's columns
 * null when the caller has no such task), so a revoked key is told from a missing task. It reads only the
 * columns the task's view shows (a poll is the most frequent request: every other column would be sent,
 * parsed and dropped at each one).
 */
export class PgTaskPoll implements TaskPoll {
  private readonly sql: string;

  constructor(
    private readonly db: Queryable,
    /** gengate's schema (the name runMigrations used). */
    schema: string,
  ) {
    const s = checkSchemaName(schema);
    this.sql = `select t.id, t.model_id, t.status, t.outputs, t.error_message, t.progress, t.route_id, t.route_attempts, t.created_at,
        t.request -> 'provider' as request_provider, t.request -> 'models' as request_models,
        $3::uuid is not null and not exists (select 1 from ${s}.api_keys k where k.id = $3 and k.revoked_at is null) as key_revoked
      from (values (1)) as one left join ${s}.tasks t on t.id = $1 and t.user_id = $2`;
  }

  async read(taskId: string, userId: string, apiKeyId: string | null): Promise<TaskViewSource | null | 'key_revoked'> {
    const { rows } = await this.db.query<PollRow>(this.sql, [taskId, userId, apiKeyId]);
    const row = rows[0];
    if (row?.key_revoked) return 'key_revoked';
    return row && row.id !== null ? toPolledTask(row, row.id) : null;
  }
}

function toPolledTask(r: PollRow, id: string): TaskViewSource {
  return {
    id,
    modelId: r.model_id,
    status: r.status,
    outputs: r.outputs,
    errorMessage: r.error_message,
    progress: r.progress,
    routeId: r.route_id,
    routeAttempts: (r.route_attempts ?? []).map(fromAttemptRow),
    createdAt: r.created_at,
    request: {
      ...(r.request_provider !== null ? { provider: r.request_provider } : {}),
      ...(r.request_models !== null ? { models: r.request_models } : {}),
    },
  };
}
