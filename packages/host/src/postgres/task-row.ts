import type { RouteAttempt, JsonValue, ProducedUsage, TaskRecord } from '@gengate/core';
import type { UpstreamMetadata } from '@gengate/core/adapter';
import { outputBodiesOf } from './output-bodies.js';
import { toSafeInt } from './queryable.js';

/** A row of the tasks table, as the statements that map it to a TaskRecord (toTask) read it. */
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
  /** Migration 030. Read only by the statements of one task for its reader (not in TASK_COLUMNS). */
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

/**
 * Every column toTask reads but the inline outputs' bytes (`output_bodies`, up to 4 KiB each): a list of
 * tasks, a claim, a sweep or a callback has no use for them, and `select *` would ship them with every row.
 * A Record, so that a field added to TaskRow fails to compile until it is listed here (or left out on purpose).
 */
const LISTED: Record<Exclude<keyof TaskRow, 'output_bodies'>, true> = {
  id: true,
  user_id: true,
  member_id: true,
  api_key_id: true,
  model_id: true,
  modality: true,
  status: true,
  request: true,
  callback_url: true,
  quoted_micro: true,
  quoted_cost_micro: true,
  charged_micro: true,
  cost_micro: true,
  reported_cost_micro: true,
  usage: true,
  upstream_metadata: true,
  progress: true,
  admitted: true,
  poll_seq: true,
  webhook_payload: true,
  outputs: true,
  warnings: true,
  error_message: true,
  upstream_handle: true,
  attempts: true,
  route_id: true,
  route_attempts: true,
  created_at: true,
  started_at: true,
  finished_at: true,
};
const NAMES = Object.keys(LISTED);

/** The select list of a statement that maps tasks rows to TaskRecords (toTask), without `output_bodies`. */
export const TASK_COLUMNS = NAMES.join(', ');
/** TASK_COLUMNS qualified by the alias `t` (statements over `tasks t`). */
export const TASK_COLUMNS_OF_T = NAMES.map((c) => `t.${c}`).join(', ');

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

export const toAttemptRow = (a: RouteAttempt): RouteAttemptRow => ({
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

/** The record of a row; `outputBodies` only when the statement read `output_bodies` and it is not null. */
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
