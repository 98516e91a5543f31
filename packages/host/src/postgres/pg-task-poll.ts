import type { TaskPoll, TaskViewSource } from '@gengate/core';
import { prepared, type NamedStatement } from './prepared-statements.js';
import type { PreparedQueryable } from './queryable.js';
import { checkSchemaName } from './schema.js';
import { fromAttemptRow, type TaskRow } from './task-row.js';
import { TurnBatch } from './turn-batch.js';

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
 * It is a named prepared statement, sent as its parameters only after each connection's first run, and
 * planned once per connection: its arrays are read through `(select $n)`, whose length the planner does
 * not see, so the plans made for the first runs (PostgreSQL plans a prepared statement for its values
 * five times before it compares) cost no less than the generic one, which PostgreSQL then keeps. Given
 * the arrays themselves, each plan was costed for its batch's length, below the generic plan's ten
 * rows, and the statement was planned at every run: `pg_stat_statements`, 24,759 runs of 4.2 polls,
 * 260 µs of planning each beside 118 µs of execution. Each poll's task and key are read by their primary
 * keys alone in LATERAL subqueries (the owner and the revocation are compared outside them, so no
 * other index of the tasks or keys fits the lookup), and their `limit 1` keeps the planner from turning
 * them into joins (or a hashed subplan) that scan the table, whatever the statistics were when the
 * connection's generic plan was made.
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
    this.statement = prepared('gengate_poll', `select case when p.user_id = q.user_id then p.task end as task, q.key_id is not null and k.active is not true as key_revoked
      from unnest((select $1::uuid[]), (select $2::uuid[]), (select $3::uuid[])) with ordinality as q(task_id, user_id, key_id, i)
      left join lateral (select k.revoked_at is null as active from ${s}.api_keys k where k.id = q.key_id limit 1) k on true
      left join lateral (select t.user_id, json_build_object(
          'id', t.id, 'user_id', t.user_id, 'member_id', coalesce(t.member_id, t.user_id), 'model_id', t.model_id, 'status', t.status, 'outputs', t.outputs, 'error_message', t.error_message,
          'progress', t.progress, 'route_id', t.route_id, 'route_attempts', t.route_attempts, 'created_at', t.created_at,
          'request_provider', t.request -> 'provider', 'request_models', t.request -> 'models') as task
        from ${s}.tasks t where t.id = q.task_id limit 1) p on true
      order by q.i`);
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
