import type { ResultUrlResolver } from '@gengate/core';
import { toTaskView } from '@gengate/core/internal';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { CallbackRepository } from '../callbacks/callback-repository.js';
import { AttemptAbortedError, ForbiddenTargetError, postCallback } from '../callbacks/post-callback.js';
import type { WorkerMetrics } from '../ops/gengate-metrics.js';
import { QUEUES } from '../postgres/boss-queues.js';
import { unflushedFetchDb } from '../postgres/unflushed-fetch.js';
import { startJobDispatcher } from './job-dispatcher.js';

export interface CallbackWorkerOptions {
  readonly allowPrivate: boolean;
  /** Total deadline of one delivery attempt (connect, headers, body). */
  readonly timeoutMs: number;
  /** Deliveries this process runs at once. Default 32. */
  readonly concurrency?: number;
  /**
   * Deliveries of one user in flight at once in this process (the dispatcher's perGroupLimit, as pg-boss's
   * local group concurrency; jobs are grouped by the task's user). One user's slow receivers hold at most
   * this many of this process's slots. Default 4. (pg-boss's database-wide groupConcurrency counts active
   * jobs before claiming and overshoots when many workers fetch at once; the in-process count is exact.)
   */
  readonly perUserConcurrency?: number;
  /**
   * The pool on which callback jobs are fetched without waiting for the fetch's WAL flush
   * (unflushedFetchDb); absent: on pg-boss's own pool, each fetch waiting for its flush.
   */
  readonly fetchPool?: pg.Pool;
  readonly logger: Logger;
  /** Counts each attempt as delivered, retried or abandoned. */
  readonly metrics?: Pick<WorkerMetrics, 'callback'>;
}

export interface CallbackWorker {
  /**
   * Stops taking jobs; attempts in flight get graceMs to end, then are cut off. A cut-off attempt fails
   * its job, which pg-boss retries (the next process delivers it).
   */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

/**
 * Delivers task callbacks: one POST of the poll body, signed with Standard Webhooks (webhook-id is
 * stable across retries), 2xx = delivered. Anything else throws, so pg-boss retries with exponential
 * backoff; a private target is recorded and not retried.
 */
export async function startCallbackWorker(
  boss: PgBoss,
  deps: { callbacks: CallbackRepository; urls: ResultUrlResolver },
  opts: CallbackWorkerOptions,
): Promise<CallbackWorker> {
  const log = opts.logger.child({ component: 'callback-worker' });
  const shutdown = new AbortController();
  if (opts.allowPrivate) log.warn('CALLBACK_ALLOW_PRIVATE is on: callbacks may reach loopback and private addresses (development only)');
  const concurrency = opts.concurrency ?? 32;
  const count = (result: 'delivered' | 'retried' | 'abandoned') => opts.metrics?.callback(result);
  // On gengate's own loop over pg-boss's fetch (startJobDispatcher), as generation jobs: one fetch for
  // every free slot and one poll for the process (pg-boss's work() polled once per slot: 32 fetches
  // every 2 s on an idle process), woken through NOTIFY when a settlement enqueued a callback (JobWakeups);
  // polling finds retries whose delay has passed. A delivery that throws fails its job with pg-boss,
  // which retries it with the queue's backoff, as before.
  const dispatcher = startJobDispatcher<{ taskId: string }>(boss, {
    queue: QUEUES.callback,
    slots: concurrency,
    perGroupLimit: Math.min(opts.perUserConcurrency ?? 4, concurrency),
    pollingIntervalMs: 2_000,
    ...(opts.fetchPool ? { fetchDb: unflushedFetchDb(opts.fetchPool) } : {}),
    logger: opts.logger,
    handle: async (job, signal) => {
      // pg-boss retries a job that throws until its retry limit; the attempt that reaches it is the last.
      const lastAttempt = job.retryCount >= job.retryLimit;
      const delivery = await deps.callbacks.delivery(job.data.taskId);
      if (!delivery || delivery.delivered) return;
      const { task, secret } = delivery;
      if (!task.callbackUrl || (task.status !== 'success' && task.status !== 'fail')) return;
      const body = JSON.stringify(toTaskView(task, deps.urls));
      const msgId = `msg_${task.id}`;
      const timestamp = new Date();
      const headers = {
        'webhook-id': msgId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(msgId, timestamp, body),
      };
      const started = Date.now();
      // A final record (delivered, or not to be sent) completes the job in its own statement.
      const record = (r: { statusCode: number | null; delivered: boolean; error: string | null }, final = false) =>
        deps.callbacks.record({ taskId: task.id, url: task.callbackUrl ?? '', ...r, durationMs: Date.now() - started }, { final });
      let statusCode: number;
      try {
        ({ statusCode } = await postCallback(task.callbackUrl, body, headers, { allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs, signal: AbortSignal.any([shutdown.signal, signal]) }));
      } catch (err) {
        if (err instanceof ForbiddenTargetError) {
          count('abandoned');
          await record({ statusCode: null, delivered: false, error: `not sent: ${err.message}` }, true);
          log.warn({ taskId: task.id, err: err.message }, 'callback not sent: private or reserved target');
          return;
        }
        count(lastAttempt ? 'abandoned' : 'retried');
        await record({ statusCode: null, delivered: false, error: (err as Error).message });
        if (err instanceof AttemptAbortedError) log.info({ taskId: task.id }, 'callback attempt cut off by shutdown; it will be retried');
        throw err;
      }
      const delivered = statusCode >= 200 && statusCode < 300;
      // Counted before the attempt is recorded: whoever sees the record sees the count.
      count(delivered ? 'delivered' : lastAttempt ? 'abandoned' : 'retried');
      await record({ statusCode, delivered, error: delivered ? null : `HTTP ${statusCode}` }, delivered);
      if (!delivered) throw new Error(`callback answered HTTP ${statusCode}`);
      log.info({ taskId: task.id, statusCode }, 'callback delivered');
    },
  });
  return {
    async stop(stopOpts) {
      const stopped = dispatcher.stop();
      const timer = setTimeout(() => shutdown.abort(), stopOpts?.graceMs ?? 0);
      try {
        await stopped;
      } finally {
        clearTimeout(timer);
        shutdown.abort();
      }
    },
  };
}
