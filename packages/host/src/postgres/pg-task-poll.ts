import { hash } from 'node:crypto';
import type { TaskPoll, TaskViewSource } from '@gengate/core';
import { checkSchemaName } from './schema.js';
import { fromAttemptRow, type TaskRow } from './pg-task-store.js';

/** The task as the poll's statement builds it (json_build_object): the columns of its view, not the whole row. */
type PolledTaskJson = Pick<TaskRow, 'id' | 'user_id' | 'model_id' | 'status' | 'outputs' | 'error_message' | 'progress' | 'route_id'> & {
  route_attempts: TaskRow['route_attempts'] | null;
  /** coalesce(member_id, user_id): the submitter (GetTask.visible compares it with the caller). */
  member_id: string;
  /** timestamptz as JSON: ISO 8601 with the session's offset. */
  created_at: string;
  /** The request's routing fields (`request -> 'provider'`, `request -> 'models'`): null when absent. */
  request_provider: NonNullable<TaskViewSource['request']['provider']> | null;
  request_models: NonNullable<TaskViewSource['request']['models']> | null;
};

/** A pg Pool: the poll runs as a named prepared statement. */
export interface PreparedQueryable {
  query<R extends object>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

interface PollRow {
  /** Null when the caller has no task with this id. */
  task: PolledTaskJson | null;
  key_revoked: boolean;
}

/**
 * The TaskPoll on PostgreSQL: one statement, outside any transaction: the task by id and owner, and
 * whether the request's API key is still active. It answers one row in every case (`task` null when the
 * caller has no such task), so a revoked key is told from a missing task. A poll is the most frequent
 * request, so the statement reads only the columns of the task's view, built into one JSON value: the
 * driver's work per column (field descriptions, a parser per column, the row object) is paid for two.
 * It is a named prepared statement: each pooled connection parses and plans it once (planning it took
 * several times as long as running it), and sends only its parameters after that.
 */
export class PgTaskPoll implements TaskPoll {
  private readonly sql: string;
  /** The statement's name on each connection: one per text (so per schema). */
  private readonly name: string;

  constructor(
    private readonly db: PreparedQueryable,
    /** gengate's schema (the name runMigrations used). */
    schema: string,
  ) {
    const s = checkSchemaName(schema);
    this.sql = `select case when t.id is null then null else json_build_object(
          'id', t.id, 'user_id', t.user_id, 'member_id', coalesce(t.member_id, t.user_id), 'model_id', t.model_id, 'status', t.status, 'outputs', t.outputs, 'error_message', t.error_message,
          'progress', t.progress, 'route_id', t.route_id, 'route_attempts', t.route_attempts, 'created_at', t.created_at,
          'request_provider', t.request -> 'provider', 'request_models', t.request -> 'models') end as task,
        $3::uuid is not null and not exists (select 1 from ${s}.api_keys k where k.id = $3 and k.revoked_at is null) as key_revoked
      from (values (1)) as one left join ${s}.tasks t on t.id = $1 and t.user_id = $2`;
    this.name = `gengate_poll_${hash('sha256', this.sql, 'hex').slice(0, 16)}`;
  }

  async read(taskId: string, userId: string, apiKeyId: string | null): Promise<TaskViewSource | null | 'key_revoked'> {
    const { rows } = await this.db.query<PollRow>({ name: this.name, text: this.sql, values: [taskId, userId, apiKeyId] });
    const row = rows[0];
    if (row?.key_revoked) return 'key_revoked';
    return row?.task ? toPolledTask(row.task) : null;
  }
}

function toPolledTask(t: PolledTaskJson): TaskViewSource {
  return {
    id: t.id,
    userId: t.user_id,
    memberId: t.member_id,
    modelId: t.model_id,
    status: t.status,
    outputs: t.outputs,
    errorMessage: t.error_message,
    progress: t.progress,
    routeId: t.route_id,
    routeAttempts: (t.route_attempts ?? []).map(fromAttemptRow),
    createdAt: new Date(t.created_at),
    request: {
      ...(t.request_provider !== null ? { provider: t.request_provider } : {}),
      ...(t.request_models !== null ? { models: t.request_models } : {}),
    },
  };
}
