import { TASK_COLUMNS, TASK_COLUMNS_OF_T } from '../task-row.js';

/**
 * The task store's statements (PgTaskStore, PgTaskClaims), as text over gengate's schema (already checked).
 * Every statement that answers tasks rows for toTask names its columns (TASK_COLUMNS): only the reads of
 * one task by id (byId, forUser), whose callers may read its inline outputs (readOutput), add `output_bodies`.
 */

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

/** The statements, built once per schema (createPgStores). */
export const taskSql = (schema: string) => ({
  insert: `insert into ${schema}.tasks (id, user_id, api_key_id, model_id, modality, status, request, callback_url, quoted_micro, quoted_cost_micro, admitted, member_id)
       values ($1, $2, $3, $4, $5, 'waiting', $6, $7, $8, $9, $10, $11) returning ${TASK_COLUMNS}`,
  byId: `select ${TASK_COLUMNS}, output_bodies from ${schema}.tasks where id = $1`,
  recordRouteAttempt: `update ${schema}.tasks set route_attempts = route_attempts || jsonb_build_array($2::jsonb),
         route_id = case when $3::boolean then route_id else $4 end where id = $1`,
  listForUser: `select ${TASK_COLUMNS} from ${schema}.tasks where ${LIST_WHERE} order by created_at desc, id desc limit $6 offset $7`,
  countForUser: `select count(*)::int as n from ${schema}.tasks where ${LIST_WHERE}`,
  forUser: `select ${TASK_COLUMNS}, output_bodies from ${schema}.tasks where id = $1 and user_id = $2`,
  markGenerating: `update ${schema}.tasks set status = 'generating', attempts = attempts + 1, started_at = coalesce(started_at, $2)
       where id = $1 and ${UNFINISHED} returning ${TASK_COLUMNS}`,
  /** markGenerating of several tasks ($1 ids, $2 their claim times), each row once (PgTaskClaims). */
  markGeneratingMany: `update ${schema}.tasks t set status = 'generating', attempts = t.attempts + 1, started_at = coalesce(t.started_at, c.at)
       from unnest($1::uuid[], $2::timestamptz[]) as c(id, at)
       where t.id = c.id and t.${UNFINISHED} returning ${TASK_COLUMNS_OF_T}`,
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
  listUnfinished: `select ${TASK_COLUMNS} from ${schema}.tasks where ${UNFINISHED} order by created_at limit $1`,
  activeCounts: `select case $2 when 'chat' then running_chat when 'image' then running_image else running_video end as admitted,
              case $2 when 'chat' then queued_chat when 'image' then queued_image else queued_video end as queued
       from ${schema}.account_totals where user_id = $1`,
  listOverdue: `with d (modality, ms) as (values ('chat', $2::bigint), ('image', $3::bigint), ('video', $4::bigint))
       select ${TASK_COLUMNS_OF_T} from ${schema}.tasks t join d on d.modality = t.modality
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
