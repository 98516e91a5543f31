import { toTaskView, type ResultUrlResolver, type TaskStore } from '@gengate/core';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { CallbackRepository } from '../callbacks/callback-repository.js';
import { ForbiddenTargetError, postCallback } from '../callbacks/post-callback.js';
import { QUEUES } from './queues.js';

export interface CallbackWorkerOptions {
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  readonly logger: Logger;
}

/**
 * Delivers task callbacks: one POST of the poll body, signed with Standard Webhooks (webhook-id is
 * stable across retries), 2xx = delivered. Anything else throws, so pg-boss retries with exponential
 * backoff; a private target is recorded and not retried.
 */
export async function startCallbackWorker(
  boss: PgBoss,
  deps: { tasks: TaskStore; callbacks: CallbackRepository; urls: ResultUrlResolver },
  opts: CallbackWorkerOptions,
): Promise<{ stop(): Promise<void> }> {
  const log = opts.logger.child({ component: 'callback-worker' });
  if (opts.allowPrivate) log.warn('CALLBACK_ALLOW_PRIVATE is on: callbacks may reach loopback and private addresses (development only)');
  await boss.work<{ taskId: string }>(QUEUES.callback, { batchSize: 1, localConcurrency: 4, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 }, async (jobs) => {
    for (const job of jobs) {
      const task = await deps.tasks.findById(job.data.taskId);
      if (!task?.callbackUrl || (task.status !== 'success' && task.status !== 'fail')) continue;
      if (await deps.callbacks.isDelivered(task.id)) continue;
      const body = JSON.stringify(toTaskView(task, deps.urls));
      const secret = await deps.callbacks.secretFor(task.userId);
      const msgId = `msg_${task.id}`;
      const timestamp = new Date();
      const headers = {
        'webhook-id': msgId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(msgId, timestamp, body),
      };
      const started = Date.now();
      try {
        const { statusCode } = await postCallback(task.callbackUrl, body, headers, { allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs });
        const delivered = statusCode >= 200 && statusCode < 300;
        await deps.callbacks.record({ taskId: task.id, url: task.callbackUrl, statusCode, delivered, error: delivered ? null : `HTTP ${statusCode}`, durationMs: Date.now() - started });
        if (!delivered) throw new Error(`callback answered HTTP ${statusCode}`);
        log.info({ taskId: task.id, statusCode }, 'callback delivered');
      } catch (err) {
        const refused = err instanceof ForbiddenTargetError;
        if (refused || !(err instanceof Error && err.message.startsWith('callback answered'))) {
          await deps.callbacks.record({
            taskId: task.id,
            url: task.callbackUrl,
            statusCode: null,
            delivered: false,
            error: refused ? `not sent: ${err.message}` : (err as Error).message,
            durationMs: Date.now() - started,
          });
        }
        if (refused) {
          log.warn({ taskId: task.id, err: err.message }, 'callback not sent: private or reserved target');
          continue;
        }
        throw err;
      }
    }
  });
  return { stop: () => boss.offWork(QUEUES.callback, { wait: true }) };
}
