import type { RouteAttempt, JsonValue, ProducedUsage, TaskRecord } from '@gengate/core';
import type { UpstreamMetadata } from '@gengate/core/adapter';
import { outputBodiesOf } from './output-bodies.js';
import { toSafeInt } from './queryable.js';

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
