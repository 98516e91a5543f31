import type { ActiveTaskCounts, RouteAttempt, JsonValue, Modality, NewTask, Page, ProducedUsage, TaskListFilter, TaskRecord, TaskStore, TaskSuccess } from '@gengate/core';
import type { UpstreamMetadata } from '@gengate/core/adapter';
import { toSafeInt, type Queryable } from './queryable.js';
import { outputBodiesOf, outputBodiesParam } from './output-bodies.js';

/** A row of the tasks table. */
export interface TaskRow {
  id: string;
  user_id: string;
  /** Migration 025: the submitting member; null = user_id. */
  member_id?: string | null;
  api_key_id: string | null;
  model_id: string;
  modality: TaskRecord['modality'];
  status: TaskRecord['status'];
  request: TaskRecord['request'];
  callback_url: string | null;
  quoted_micro: string;
  quoted_cost_micro: string;
  charged_micro: string | null;
  cost_micro: string | null;
  reported_cost_micro: string | null;
  usage: ProducedUsage | null;
  upstream_metadata: UpstreamMetadata | null;
  progress: number | null;
  admitted: boolean;
  poll_seq: number;
  webhook_payload: JsonValue | null;
  outputs: TaskRecord['outputs'];
  /** Migration 030. */
  output_bodies?: (Uint8Array | null)[] | null;
  warnings: TaskRecord['warnings'];
  error_message: string | null;
  upstream_handle: JsonValue | null;
  attempts: number;
  /** Migration 021. */
  route_id?: string | null;
  route_attempts?: readonly RouteAttemptRow[];
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** An attempt as the jsonb array `route_attempts` keeps it. */
export interface RouteAttemptRow {
  route: string;
  provider: string;
  outcome: RouteAttempt['outcome'];
  error_class: string | null;
  upstream_status: number | null;
  started_at: string;
  ended_at: string;
}

const toAttemptRow = (a: RouteAttempt): RouteAttemptRow => ({
  route: a.route,
  provider: a.provider,
  outcome: a.outcome,
  error_class: a.errorClass,
  upstream_status: a.upstreamStatus,
  started_at: a.startedAt.toISOString(),
  ended_at: a.endedAt.toISOString(),
});

export const fromAttemptRow = (a: RouteAttemptRow): RouteAttempt => ({
  route: a.route,
  provider: a.provider,
  outcome: a.outcome,
  errorClass: a.error_class,
  upstreamStatus: a.upstream_status,
  startedAt: new Date(a.started_at),
  endedAt: new Date(a.ended_at),
});

const nullableInt = (v: string | null): number | null => (v === null ? null : toSafeInt(v));

export const toTask = (r: TaskRow): TaskRecord => ({
  id: r.id,
  userId: r.user_id,
  memberId: r.member_id ?? r.user_id,
  apiKeyId: r.api_key_id,
  modelId: r.model_id,
  modality: r.modality,
  status: r.status,
  request: r.request,
  callbackUrl: r.callback_url,
  quotedMicro: toSafeInt(r.quoted_micro),
  quotedCostMicro: toSafeInt(r.quoted_cost_micro),
  chargedMicro: nullableInt(r.charged_micro),
  costMicro: nullableInt(r.cost_micro),
  reportedCostMicro: nullableInt(r.reported_cost_micro),
  usage: r.usage,
  upstreamMetadata: r.upstream_metadata,
  progress: r.progress,
  admitted: r.admitted,
  pollSeq: r.poll_seq,
  webhookPayload: r.webhook_payload,
  outputs: r.outputs,
  ...outputBodiesOf(r.output_bodies),
  warnings: r.warnings,
  errorMessage: r.error_message,
  upstreamHandle: r.upstream_handle,
  attempts: r.attempts,
  routeId: r.route_id ?? null,
  routeAttempts: (r.route_attempts ?? []).map(fromAttemptRow),
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

const UNFINISHED = `status in ('waiting', 'generating')`;

/**
 * Ending a task changes its user's counts on the account row (trigger, migration 012). Whoever does so
 * locks the account row first, as submissions and revocations do, so two of them never wait for each
 * other in opposite orders. Use as `${lockAccountFirst(schema)} update tasks ... where id = $1 and ... and ${ACCOUNT_LOCKED}`.
 */
const lockAccountFirst = (schema: string) => `with account as (select 1 from ${schema}.accounts where user_id = (select user_id from ${schema}.tasks where id = $1) for update)`;
const ACCOUNT_LOCKED = `(select count(*) from account) >= 0`;
const LIST_WHERE = `user_id = $1 and ($2::text[] is null or status = any($2)) and ($3::text[] is null or model_id = any($3))
      and ($4::text[] is null or modality = any($4)) and ($5::uuid is null or coalesce(member_id, user_id) = $5)`;

/** Claims tasks for the worker, several in one statement (PgTaskClaims, pg-task-claims.ts). */
export interface TaskClaims {
  claim(id: string, at: Date): Promise<TaskRow | null>;
}

/** The statements, built once per schema (createPgStores). */
export const taskSql = (schema: string) => ({
  insert: `insert into ${schema}.tasks (id, user_id, api_key_id, model_id, modality, status, request, callback_url, quoted_micro, quoted_cost_micro, admitted, member_id)
       values ($1, $2, $3, $4, $5, 'waiting', $6, $7, $8, $9, $10, $11) returning *`,
  byId: `select * from ${schema}.tasks where id = $1`,
  recordRouteAttempt: `update ${schema}.tasks set route_attempts = route_attempts || jsonb_build_array($2::jsonb),
         route_id = case when $3::boolean then route_id else $4 end where id = $1`,
  listForUser: `select * from ${schema}.tasks where ${LIST_WHERE} order by created_at desc, id desc limit $6 offset $7`,
  countForUser: `select count(*)::int as n from ${schema}.tasks where ${LIST_WHERE}`,
  forUser: `select * from ${schema}.tasks where id = $1 and user_id = $2`,
  markGenerating: `update ${schema}.tasks set status = 'generating', attempts = attempts + 1, started_at = coalesce(started_at, $2)
       where id = $1 and ${UNFINISHED} returning *`,
  /** markGenerating of several tasks ($1 ids, $2 their claim times), each row once (PgTaskClaims). */
  markGeneratingMany: `update ${schema}.tasks t set status = 'generating', attempts = t.attempts + 1, started_at = coalesce(t.started_at, c.at)
       from unnest($1::uuid[], $2::timestamptz[]) as c(id, at)
       where t.id = c.id and t.${UNFINISHED} returning t.*`,
  releaseClaim: `update ${schema}.tasks set attempts = attempts - 1,
         status = case when started_at = $3 then 'waiting' else status end, started_at = case when started_at = $3 then null else started_at end
       where id = $1 and status = 'generating' and attempts = $2`,
  saveUpstreamHandle: `update ${schema}.tasks set upstream_handle = $2, warnings = $3, webhook_payload = null where id = $1`,
  advanceCheck: `update ${schema}.tasks set poll_seq = $2::integer + 1, progress = coalesce($3, progress) where id = $1 and status = 'generating' and poll_seq = $2::integer`,
  saveWebhookPayload: `update ${schema}.tasks set webhook_payload = $2 where id = $1 and status = 'generating' and webhook_payload is null`,
  markSuccess: `${lockAccountFirst(schema)}
       update ${schema}.tasks set status = 'success', outputs = $2, warnings = $3, charged_micro = $4, cost_micro = $5, reported_cost_micro = $6,
         usage = $7, upstream_metadata = $8, progress = null, finished_at = $9, output_bodies = $10
       where id = $1 and status = 'generating' and ${ACCOUNT_LOCKED}`,
  deleteOutputBodies: `update ${schema}.tasks set output_bodies = null where id = $1 and output_bodies is not null`,
  markFail: `${lockAccountFirst(schema)}
       update ${schema}.tasks set status = 'fail', error_message = $2, finished_at = $3, progress = null,
         upstream_metadata = coalesce($4::jsonb, upstream_metadata)
       where id = $1 and ${UNFINISHED} and ${ACCOUNT_LOCKED}`,
  failWaitingForKey: `update ${schema}.tasks set status = 'fail', error_message = $2, finished_at = $3 where api_key_id = $1 and status = 'waiting'
       returning id, user_id, modality`,
  listUnfinished: `select * from ${schema}.tasks where ${UNFINISHED} order by created_at limit $1`,
  activeCounts: `select case $2 when 'chat' then running_chat when 'image' then running_image else running_video end as admitted,
              case $2 when 'chat' then queued_chat when 'image' then queued_image else queued_video end as queued
       from ${schema}.account_totals where user_id = $1`,
  listOverdue: `with d (modality, ms) as (values ('chat', $2::bigint), ('image', $3::bigint), ('video', $4::bigint))
       select t.* from ${schema}.tasks t join d on d.modality = t.modality
       where (t.status = 'generating' and coalesce(t.started_at, t.created_at) < $1::timestamptz - make_interval(secs => (d.ms + $5) / 1000.0))
          or (t.status = 'waiting' and t.admitted and t.created_at < $1::timestamptz - make_interval(secs => (d.ms + $5 + $6) / 1000.0))
       order by t.created_at limit $7`,
  listQueuedUsers: `select distinct user_id, modality from ${schema}.tasks where status = 'waiting' and not admitted limit $1`,
  admitQueued: `with admitted as (
         update ${schema}.tasks set admitted = true where id in (
           select id from ${schema}.tasks where user_id = $1 and modality = $2 and status = 'waiting' and not admitted
           order by created_at, id limit $3 for update skip locked)
         returning id, created_at)
       select id from admitted order by created_at, id`,
});
export type TaskSql = ReturnType<typeof taskSql>;

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
