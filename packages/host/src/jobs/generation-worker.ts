import type { Gengate, ProviderLimits } from '@gengate/core';
import type { JobWithMetadata, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { QUEUES } from './queues.js';

interface GenerateJob {
  taskId: string;
}

interface CheckJob {
  taskId: string;
  checkNumber: number;
}

export interface GenerationWorker {
  /** Stops taking jobs; running ones get graceMs to finish, then are aborted (their jobs are retried by the next process). */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

export interface GenerationWorkerOptions {
  /** Upstream calls (generations and starts) this process runs at once. Default 8. */
  readonly concurrency?: number;
  /** Status checks of long-running jobs this process runs at once (each is short). Default 16. */
  readonly checkConcurrency?: number;
  /** Per-provider limits: the queue itself then hands out at most maxConcurrent jobs of a provider at once. */
  readonly providerLimits?: (providerId: string) => ProviderLimits;
  /** Provider ids whose limits the queue should know of (pg-boss group tiers). */
  readonly providerIds?: readonly string[];
  readonly logger: Logger;
}

const EXHAUSTED = 'The task could not be completed after several attempts; no credits were charged.';
const NO_GROUP_LIMIT = 1_000_000;

/**
 * Runs generation jobs (one upstream call each) and status-check jobs (one short check of a long-running
 * upstream job each, rescheduled until it ends); dead-lettered jobs end their task in fail.
 */
export async function startGenerationWorker(boss: PgBoss, gengate: Gengate, opts: GenerationWorkerOptions): Promise<GenerationWorker> {
  const shutdown = new AbortController();
  const log = opts.logger.child({ component: 'generation-worker' });
  const tiers = Object.fromEntries(
    (opts.providerIds ?? []).flatMap((id) => {
      const max = opts.providerLimits?.(id).maxConcurrent ?? null;
      return max === null ? [] : [[id, max]];
    }),
  );

  // New jobs wake workers through NOTIFY; polling (also when notify is active) finds delayed jobs whose time has come.
  const generateOptions = {
    batchSize: 1,
    localConcurrency: opts.concurrency ?? 8,
    includeMetadata: true,
    pollingIntervalSeconds: 0.5,
    notifyPollingIntervalSeconds: 0.5,
    ...(Object.keys(tiers).length > 0 ? { groupConcurrency: { default: NO_GROUP_LIMIT, tiers } } : {}),
  } as const;
  await boss.work<GenerateJob, void, typeof generateOptions>(QUEUES.generate, generateOptions, async (jobs: JobWithMetadata<GenerateJob>[]) => {
    for (const job of jobs) {
      const signal = AbortSignal.any([shutdown.signal, job.signal]);
      const outcome = await gengate.executeTask.runGeneration(job.data.taskId, signal);
      log.debug({ taskId: job.data.taskId, outcome }, 'generation job done');
    }
  });
  const checkOptions = { batchSize: 1, localConcurrency: opts.checkConcurrency ?? 16, includeMetadata: true, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 } as const;
  await boss.work<CheckJob, void, typeof checkOptions>(QUEUES.check, checkOptions, async (jobs: JobWithMetadata<CheckJob>[]) => {
    for (const job of jobs) {
      const signal = AbortSignal.any([shutdown.signal, job.signal]);
      const outcome = await gengate.executeTask.checkStatus(job.data.taskId, job.data.checkNumber, signal);
      log.debug({ taskId: job.data.taskId, check: job.data.checkNumber, outcome }, 'status check done');
    }
  });
  await boss.work<GenerateJob>(QUEUES.generateDead, { batchSize: 1, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const ended = await gengate.failTask.execute(job.data.taskId, EXHAUSTED);
      if (ended) log.warn({ taskId: job.data.taskId }, 'task failed after its jobs were exhausted');
    }
  });

  return {
    async stop(stopOpts) {
      for (const q of [QUEUES.generate, QUEUES.check, QUEUES.generateDead]) await boss.offWork(q, { wait: false }).catch(() => undefined);
      const grace = stopOpts?.graceMs ?? 0;
      const timer = setTimeout(() => shutdown.abort(new Error('worker shutting down')), grace);
      await Promise.all([QUEUES.generate, QUEUES.check].map((q) => boss.offWork(q, { wait: true }).catch(() => undefined)));
      clearTimeout(timer);
      shutdown.abort(new Error('worker stopped'));
    },
  };
}
