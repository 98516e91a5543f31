import type { JsonValue, NewTask, TaskRecord, TaskStore } from '@gengate/core';
import { toSafeInt, type Queryable } from './queryable.js';

interface Row {
  id: string;
  user_id: string;
  api_key_id: string | null;
  model_id: string;
  modality: TaskRecord['modality'];
  status: TaskRecord['status'];
  request: TaskRecord['request'];
  callback_url: string | null;
  quoted_micro: string;
  charged_micro: string | null;
  outputs: TaskRecord['outputs'];
  warnings: TaskRecord['warnings'];
  error_message: string | null;
  upstream_handle: JsonValue | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const toTask = (r: Row): TaskRecord => ({
  id: r.id,
  userId: r.user_id,
  apiKeyId: r.api_key_id,
  modelId: r.model_id,
  modality: r.modality,
  status: r.status,
  request: r.request,
  callbackUrl: r.callback_url,
  quotedMicro: toSafeInt(r.quoted_micro),
  chargedMicro: r.charged_micro === null ? null : toSafeInt(r.charged_micro),
  outputs: r.outputs,
  warnings: r.warnings,
  errorMessage: r.error_message,
  upstreamHandle: r.upstream_handle,
  attempts: r.attempts,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

export class PgTaskStore implements TaskStore {
  constructor(private readonly db: Queryable) {}

  async insert(t: NewTask): Promise<TaskRecord> {
    const { rows } = await this.db.query<Row>(
      `insert into tasks (id, user_id, api_key_id, model_id, modality, status, request, callback_url, quoted_micro)
       values ($1, $2, $3, $4, $5, 'waiting', $6, $7, $8) returning *`,
      [t.id, t.userId, t.apiKeyId, t.modelId, t.modality, JSON.stringify(t.request), t.callbackUrl, t.quotedMicro],
    );
    return toTask(rows[0] as Row);
  }

  async findById(id: string): Promise<TaskRecord | null> {
    const { rows } = await this.db.query<Row>('select * from tasks where id = $1', [id]);
    return rows[0] ? toTask(rows[0]) : null;
  }

  async findForUser(id: string, userId: string): Promise<TaskRecord | null> {
    const { rows } = await this.db.query<Row>('select * from tasks where id = $1 and user_id = $2', [id, userId]);
    return rows[0] ? toTask(rows[0]) : null;
  }

  async markGenerating(id: string, at: Date): Promise<TaskRecord | null> {
    const { rows } = await this.db.query<Row>(
      `update tasks set status = 'generating', attempts = attempts + 1, started_at = coalesce(started_at, $2)
       where id = $1 and status in ('waiting', 'generating') returning *`,
      [id, at],
    );
    return rows[0] ? toTask(rows[0]) : null;
  }

  async saveUpstreamHandle(id: string, handle: JsonValue): Promise<void> {
    await this.db.query('update tasks set upstream_handle = $2 where id = $1', [id, JSON.stringify(handle)]);
  }

  async markSuccess(id: string, r: Parameters<TaskStore['markSuccess']>[1]): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `update tasks set status = 'success', outputs = $2, warnings = $3, charged_micro = $4, finished_at = $5
       where id = $1 and status = 'generating'`,
      [id, JSON.stringify(r.outputs), JSON.stringify(r.warnings), r.chargedMicro, r.at],
    );
    return (rowCount ?? 0) > 0;
  }

  async markFail(id: string, message: string, at: Date): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `update tasks set status = 'fail', error_message = $2, finished_at = $3 where id = $1 and status in ('waiting', 'generating')`,
      [id, message, at],
    );
    return (rowCount ?? 0) > 0;
  }

  async failWaitingForKey(apiKeyId: string, message: string, at: Date): Promise<readonly string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `update tasks set status = 'fail', error_message = $2, finished_at = $3 where api_key_id = $1 and status = 'waiting' returning id`,
      [apiKeyId, message, at],
    );
    return rows.map((r) => r.id);
  }

  async listUnfinished(limit: number): Promise<readonly TaskRecord[]> {
    const { rows } = await this.db.query<Row>(`select * from tasks where status in ('waiting', 'generating') order by created_at limit $1`, [limit]);
    return rows.map(toTask);
  }
}
