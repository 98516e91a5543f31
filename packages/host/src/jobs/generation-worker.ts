import type { Gengate } from '@gengate/core';
import type { JobWithMetadata, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { QUEUES } from './queues.js';

interface GenerateJob {
  taskId: string;
}

export interface GenerationWorker {
  /** Stops taking jobs; running ones get graceMs to finish, then are aborted (their jobs are retried by the next process). */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

const EXHAUSTED = 'The task could not be completed after several attempts; no credits were charged.';

/** Runs generation jobs: each job drives one task through ExecuteTask; dead-lettered jobs end their task in fail. */
export async function startGenerationWorker(
  boss: PgBoss,
  gengate: Gengate,
  opts: { concurrency?: number; logger: Logger },
): Promise<GenerationWorker> {
  const shutdown = new AbortController();
  const log = opts.logger.child({ component: 'generation-worker' });

  // New jobs wake workers through NOTIFY; polling (also when notify is active) finds retries whose delay has passed.
  const workOptions = {
    batchSize: 1,
    localConcurrency: opts.concurrency ?? 8,
    includeMetadata: true,
    pollingIntervalSeconds: 1,
    notifyPollingIntervalSeconds: 1,
  } as const;
  await boss.work<GenerateJob, void, typeof workOptions>(
    QUEUES.generate,
    workOptions,
    async (jobs: JobWithMetadata<GenerateJob>[]) => {
      for (const job of jobs) {
        const signal = AbortSignal.any([shutdown.signal, job.signal]);
        const outcome = await gengate.executeTask.execute(job.data.taskId, signal, { isLast: job.retryCount >= job.retryLimit });
        log.debug({ taskId: job.data.taskId, outcome, attempt: job.retryCount + 1 }, 'generation job done');
      }
    },
  );
  await boss.work<GenerateJob>(QUEUES.generateDead, { batchSize: 1, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const ended = await gengate.failTask.execute(job.data.taskId, EXHAUSTED);
      if (ended) log.warn({ taskId: job.data.taskId }, 'task failed after exhausting its retries');
    }
  });

  return {
    async stop(stopOpts) {
      await boss.offWork(QUEUES.generate, { wait: false }).catch(() => undefined);
      await boss.offWork(QUEUES.generateDead, { wait: false }).catch(() => undefined);
      const grace = stopOpts?.graceMs ?? 0;
      const timer = setTimeout(() => shutdown.abort(new Error('worker shutting down')), grace);
      await boss.offWork(QUEUES.generate, { wait: true }).catch(() => undefined);
      clearTimeout(timer);
      shutdown.abort(new Error('worker stopped'));
    },
  };
}
