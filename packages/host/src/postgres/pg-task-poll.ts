import type { TaskPoll, TaskViewSource } from '@gengate/core';
import { prepared, type NamedStatement } from './prepared-statements.js';
import type { PreparedQueryable } from './queryable.js';
import { checkSchemaName } from './schema.js';
import { fromAttemptRow, type TaskRow } from './task-row.js';
import { TurnBatch } from './turn-batch.js';

/** The task as gengate_poll builds it (functions/poll.ts, json_build_object): the columns of its view, not the whole row. */
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

interface PollRow {
  /** Null when the caller has no task with this id. */
  task: PolledTaskJson | null;
  key_revoked: boolean;
}

interface PollInput {
  readonly taskId: string;
  readonly userId: string;
  readonly apiKeyId: string | null;
}

/**
 * The TaskPoll on PostgreSQL: one statement, outside any transaction, for every poll of one turn of the
 * event loop (TurnBatch): each poll's task by id and owner, and whether its API key is still active. It
 * answers one row per poll in every case (`task` null when the caller has no such task), so a revoked key
 * is told from a missing task. A poll is the most frequent request: the statement reads only the columns
 * of the task's view, built into one JSON value (the driver's work per column is paid for two), and polls
 * that arrive together (from different connections, in the same wake-up) share its round trip, its
 * network writes and its execution. One statement is in flight at a time: the polls that arrive while it
 * runs go together in the next (group commit, as the intake's), so a busy process wakes its database
 * connection once per batch rather than once per turn. A poll is a read by primary keys that waits on
 * no lock, so one in flight holds the next back only as long as the database takes to answer it. Measured
 * against one statement per turn (`npm run bench:poll -- --base`, 8 rounds): CPU per poll 148 against
 * 164 µs, 4,506 against 3,763 polls a second; the same p50 at 1,000 polls a second.
 *
 * It is a named prepared statement over the function gengate_poll (functions/poll.ts), whose own statement
 * PostgreSQL plans once per connection and only by primary keys: prepared alone, it was planned at every
 * run, and its generic plan could be a table scan (that file says why).
 */
export class PgTaskPoll implements TaskPoll {
  private readonly statement: NamedStatement;
  private readonly batch = new TurnBatch<PollInput, PollRow>((polls) => this.readMany(polls), { inFlightPerKey: 1 });

  constructor(
    private readonly db: PreparedQueryable,
    /** gengate's schema (the name runMigrations used). */
    schema: string,
  ) {
    const s = checkSchemaName(schema);
    this.statement = prepared('gengate_poll', `select p.task, p.key_revoked from ${s}.gengate_poll($1::uuid[], $2::uuid[], $3::uuid[]) p order by p.i`);
  }

  async read(taskId: string, userId: string, apiKeyId: string | null): Promise<TaskViewSource | null | 'key_revoked'> {
    const row = await this.batch.call({ taskId, userId, apiKeyId });
    if (row.key_revoked) return 'key_revoked';
    return row.task ? toPolledTask(row.task) : null;
  }

  private async readMany(polls: readonly PollInput[]): Promise<PollRow[]> {
    const { rows } = await this.db.query<PollRow>({
      ...this.statement,
      values: [polls.map((p) => p.taskId), polls.map((p) => p.userId), polls.map((p) => p.apiKeyId)],
    });
    return rows;
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
