import { randomBytes } from 'node:crypto';
import type { TaskRecord } from '@gengate/core';
import { inject, injectable } from 'inversify';
import { HOST_TOKENS } from '../host-tokens.js';
import { BOSS_SCHEMA } from '../postgres/boss-queues.js';
import { currentJob, jobSettled } from '../postgres/current-job.js';
import { preparedQueryable } from '../postgres/prepared-statements.js';
import type { PreparedQueryable, Queryable } from '../postgres/queryable.js';
import { TASK_COLUMNS_OF_T, toTask, type TaskRow } from '../postgres/task-row.js';
import { checkSchemaName } from '../postgres/schema.js';

export interface CallbackAttemptView {
  attempt: number;
  url: string;
  status_code: number | null;
  delivered: boolean;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const callbackSql = (schema: string) => ({
  secretFor: `update ${schema}.organizations set webhook_secret = coalesce(webhook_secret, $2) where id = $1 returning webhook_secret`,
  rotate: `update ${schema}.organizations set webhook_secret = $2 where id = $1`,
  record: `insert into ${schema}.callback_attempts (task_id, url, status_code, delivered, error, duration_ms) values ($1, $2, $3, $4, $5, $6)`,
  // The final record and the completion of the delivery's job in one statement (one commit), as the task's
  // end does: gengate_complete_job, fenced to the attempt the worker fetched.
  recordAndComplete: `with recorded as (insert into ${schema}.callback_attempts (task_id, url, status_code, delivered, error, duration_ms) values ($1, $2, $3, $4, $5, $6))
       select ${schema}.gengate_complete_job($7, $8, $9, $10)`,
  delivery: `select ${TASK_COLUMNS_OF_T}, exists (select 1 from ${schema}.callback_attempts a where a.task_id = t.id and a.delivered) as delivered, u.webhook_secret
       from ${schema}.tasks t join ${schema}.organizations u on u.id = t.user_id where t.id = $1`,
  isDelivered: `select 1 from ${schema}.callback_attempts where task_id = $1 and delivered`,
  owner: `select 1 from ${schema}.tasks where id = $1 and user_id = $2`,
  attempts: `select url, status_code, delivered, error, duration_ms, created_at from ${schema}.callback_attempts where task_id = $1 order by id`,
});

/** Callback signing secrets (one per organization: migration 028) and the record of delivery attempts, in gengate's schema (`schema`: the name runMigrations used). */
@injectable()
export class CallbackRepository {
  private readonly sql: ReturnType<typeof callbackSql>;
  /** The pool, each statement a named prepared statement (the delivery's read was planned in 275 µs and run in 50). */
  private readonly db: Queryable;

  constructor(@inject(HOST_TOKENS.Pool) pool: PreparedQueryable, @inject(HOST_TOKENS.Schema) schema: string) {
    this.sql = callbackSql(checkSchemaName(schema));
    this.db = preparedQueryable(pool, 'gengate_callback');
  }

  /** The user's signing secret, created on first use. */
  async secretFor(userId: string): Promise<string> {
    const { rows } = await this.db.query<{ webhook_secret: string }>(
      this.sql.secretFor,
      [userId, newSecret()],
    );
    const secret = rows[0]?.webhook_secret;
    if (!secret) throw new Error(`no user ${userId}`);
    return secret;
  }

  async rotate(userId: string): Promise<string> {
    const secret = newSecret();
    await this.db.query(this.sql.rotate, [userId, secret]);
    return secret;
  }

  /**
   * Records a delivery attempt. `final`: the attempt ends its job (delivered, or not to be sent): when a
   * pg-boss job runs it (currentJob), the same statement completes that job, and the job's dispatcher
   * sends no completion of its own (jobSettled).
   */
  async record(a: { taskId: string; url: string; statusCode: number | null; delivered: boolean; error: string | null; durationMs: number }, opts?: { final?: boolean }): Promise<void> {
    const values = [a.taskId, a.url, a.statusCode, a.delivered, a.error, a.durationMs];
    const job = opts?.final ? currentJob() : undefined;
    if (!job) {
      await this.db.query(this.sql.record, values);
      return;
    }
    await this.db.query(this.sql.recordAndComplete, [...values, BOSS_SCHEMA, job.queue, job.id, job.attempt]);
    jobSettled();
  }

  /**
   * What a delivery needs, in one query: the task (without its inline outputs' bytes: the callback's body
   * is the task's view), whether a callback for it was delivered already, and its user's signing secret
   * (created on first use). Null when there is no such task.
   */
  async delivery(taskId: string): Promise<{ task: TaskRecord; delivered: boolean; secret: string } | null> {
    const { rows } = await this.db.query<TaskRow & { delivered: boolean; webhook_secret: string | null }>(
      this.sql.delivery,
      [taskId],
    );
    const r = rows[0];
    if (!r) return null;
    return { task: toTask(r), delivered: r.delivered, secret: r.webhook_secret ?? (await this.secretFor(r.user_id)) };
  }

  async isDelivered(taskId: string): Promise<boolean> {
    const { rows } = await this.db.query(this.sql.isDelivered, [taskId]);
    return rows.length > 0;
  }

  async attemptsFor(taskId: string, userId: string): Promise<CallbackAttemptView[] | null> {
    const owner = await this.db.query(this.sql.owner, [taskId, userId]);
    if (owner.rows.length === 0) return null;
    const { rows } = await this.db.query<{ url: string; status_code: number | null; delivered: boolean; error: string | null; duration_ms: number; created_at: Date }>(
      this.sql.attempts,
      [taskId],
    );
    return rows.map((r, i) => ({ attempt: i + 1, url: r.url, status_code: r.status_code, delivered: r.delivered, error: r.error, duration_ms: r.duration_ms, created_at: r.created_at.toISOString() }));
  }
}
