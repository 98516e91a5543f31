import type { ActiveTaskCounts, RouteAttempt, JsonValue, Modality, NewTask, Page, TaskListFilter, TaskRecord, TaskStore, TaskSuccess } from '@gengate/core';
import type { UpstreamMetadata } from '@gengate/core/adapter';
import { outputBodiesParam } from './output-bodies.js';
import type { Queryable } from './queryable.js';
import type { TaskSql } from './sql/tasks.js';
import { toAttemptRow, toTask, type TaskRow } from './task-row.js';

/** Claims tasks for the worker, several in one statement (PgTaskClaims, pg-task-claims.ts). */
export interface TaskClaims {
  claim(id: string, at: Date): Promise<TaskRow | null>;
}

export class PgTaskStore implements TaskStore {
  constructor(
    private readonly db: Queryable,
    private readonly sql: TaskSql,
    /** Over the pool: the claims of one event-loop turn share one statement (absent inside a transaction). */
    private readonly claims?: TaskClaims,
  ) {}

  async insert(t: NewTask): Promise<TaskRecord> {
    const { rows } = await this.db.query<TaskRow>(
      this.sql.insert,
      [t.id, t.userId, t.apiKeyId, t.modelId, t.modality, JSON.stringify(t.request), t.callbackUrl, t.quotedMicro, t.quotedCostMicro, t.admitted, t.memberId ?? t.userId],
    );
    return toTask(rows[0] as TaskRow);
  }

  async recordRouteAttempt(id: string, attempt: RouteAttempt): Promise<void> {
    await this.db.query(this.sql.recordRouteAttempt, [id, JSON.stringify(toAttemptRow(attempt)), attempt.outcome === 'skipped', attempt.route]);
  }

  async findById(id: string): Promise<TaskRecord | null> {
    const { rows } = await this.db.query<TaskRow>(this.sql.byId, [id]);
    return rows[0] ? toTask(rows[0]) : null;
  }

  async listForUser(userId: string, filter: TaskListFilter, page: number, perPage: number): Promise<Page<TaskRecord>> {
    const orNull = (list: readonly string[] | undefined) => (list && list.length > 0 ? [...list] : null);
    const args = [userId, orNull(filter.statuses), orNull(filter.modelIds), orNull(filter.modalities), filter.memberId ?? null];
    const { rows } = await this.db.query<TaskRow>(this.sql.listForUser, [
      ...args,
      perPage,
      (page - 1) * perPage,
    ]);
    const count = await this.db.query<{ n: number }>(this.sql.countForUser, args);
    return { items: rows.map(toTask), total: count.rows[0]?.n ?? 0 };
  }

  async findForUser(id: string, userId: string): Promise<TaskRecord | null> {
    const { rows } = await this.db.query<TaskRow>(this.sql.forUser, [id, userId]);
    return rows[0] ? toTask(rows[0]) : null;
  }

  async markGenerating(id: string, at: Date): Promise<TaskRecord | null> {
    if (this.claims) {
      const row = await this.claims.claim(id, at);
      return row ? toTask(row) : null;
    }
    const { rows } = await this.db.query<TaskRow>(this.sql.markGenerating, [id, at]);
    return rows[0] ? toTask(rows[0]) : null;
  }

  async releaseClaim(id: string, claim: { readonly attempts: number; readonly at: Date }): Promise<void> {
    await this.db.query(this.sql.releaseClaim, [id, claim.attempts, claim.at]);
  }

  async saveUpstreamHandle(id: string, handle: JsonValue | null, startWarnings: TaskRecord['warnings'] = []): Promise<void> {
    await this.db.query(this.sql.saveUpstreamHandle, [id, handle === null ? null : JSON.stringify(handle), JSON.stringify(startWarnings)]);
  }

  async advanceCheck(id: string, current: number, progress: number | null): Promise<boolean> {
    const { rowCount } = await this.db.query(
      this.sql.advanceCheck,
      [id, current, progress],
    );
    return (rowCount ?? 0) > 0;
  }

  async saveWebhookPayload(id: string, payload: JsonValue): Promise<boolean> {
    const { rowCount } = await this.db.query(this.sql.saveWebhookPayload, [id, JSON.stringify(payload)]);
    return (rowCount ?? 0) > 0;
  }

  async markSuccess(id: string, r: TaskSuccess): Promise<boolean> {
    const { rowCount } = await this.db.query(
      this.sql.markSuccess,
      [id, JSON.stringify(r.outputs), JSON.stringify(r.warnings), r.chargedMicro, r.costMicro, r.reportedCostMicro, JSON.stringify(r.usage), JSON.stringify(r.metadata), r.at, outputBodiesParam(r.outputBodies)],
    );
    return (rowCount ?? 0) > 0;
  }

  async deleteOutputBodies(id: string): Promise<void> {
    await this.db.query(this.sql.deleteOutputBodies, [id]);
  }

  async markFail(id: string, message: string, at: Date, metadata?: UpstreamMetadata): Promise<boolean> {
    const { rowCount } = await this.db.query(
      this.sql.markFail,
      [id, message, at, metadata === undefined ? null : JSON.stringify(metadata)],
    );
    return (rowCount ?? 0) > 0;
  }

  async failWaitingForKey(apiKeyId: string, message: string, at: Date): Promise<readonly { id: string; userId: string; modality: Modality }[]> {
    const { rows } = await this.db.query<{ id: string; user_id: string; modality: Modality }>(
      this.sql.failWaitingForKey,
      [apiKeyId, message, at],
    );
    return rows.map((r) => ({ id: r.id, userId: r.user_id, modality: r.modality }));
  }

  async listUnfinished(limit: number): Promise<readonly TaskRecord[]> {
    const { rows } = await this.db.query<TaskRow>(this.sql.listUnfinished, [limit]);
    return rows.map(toTask);
  }

  /** Read from the counts a trigger keeps on the account row (migration 012). */
  async activeCounts(userId: string, modality: Modality): Promise<ActiveTaskCounts> {
    const { rows } = await this.db.query<{ admitted: number; queued: number }>(
      this.sql.activeCounts,
      [userId, modality],
    );
    return rows[0] ?? { admitted: 0, queued: 0 };
  }

  async listOverdue(now: Date, deadlinesMs: Readonly<Record<Modality, number>>, marginMs: number, admittedGraceMs: number, limit: number): Promise<readonly TaskRecord[]> {
    const { rows } = await this.db.query<TaskRow>(
      this.sql.listOverdue,
      [now, deadlinesMs.chat, deadlinesMs.image, deadlinesMs.video, marginMs, admittedGraceMs, limit],
    );
    return rows.map(toTask);
  }

  async listQueuedUsers(limit: number): Promise<readonly { userId: string; modality: Modality }[]> {
    const { rows } = await this.db.query<{ user_id: string; modality: Modality }>(
      this.sql.listQueuedUsers,
      [limit],
    );
    return rows.map((r) => ({ userId: r.user_id, modality: r.modality }));
  }

  async admitQueued(userId: string, modality: Modality, slots: number): Promise<readonly string[]> {
    if (slots <= 0) return [];
    const { rows } = await this.db.query<{ id: string }>(
      this.sql.admitQueued,
      [userId, modality, slots],
    );
    return rows.map((r) => r.id);
  }
}
