import type { GengateUseCases, ProviderLimits } from '@gengate/core';
import type pg from 'pg';
import type { Job, JobResult, JobWithMetadata, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { runAsJob } from '../postgres/current-job.js';
import { startJobDispatcher } from './job-dispatcher.js';
import { QUEUES } from '../postgres/boss-queues.js';
import { unflushedFetchDb } from '../postgres/unflushed-fetch.js';
import type { HostTracing, TaskTrace, TracedJob } from '../tracing/host-tracing.js';

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
  /** Upstream calls (generations and starts) this process runs at once. Default 32. */
  readonly concurrency?: number;
  /** Status checks of long-running jobs this process runs at once (each is short). Default 16. */
  readonly checkConcurrency?: number;
  /** Per-provider limits: the queue itself then hands out at most maxConcurrent jobs of a provider at once. */
  readonly providerLimits?: (providerId: string) => ProviderLimits;
  /** Provider ids whose limits the queue should know of (pg-boss group tiers). */
  readonly providerIds?: readonly string[];
  /**
   * The pool on which generation jobs are fetched without waiting for the fetch's WAL flush
   * (unflushedFetchDb); absent: on pg-boss's own pool, each fetch waiting for its flush.
   */
  readonly fetchPool?: pg.Pool;
  readonly logger: Logger;
  /** With tracing on: each job runs under its task's trace, read by `taskOf` (absent: no span, no read). */
  readonly tracing?: { readonly tracing: HostTracing; readonly taskOf: (taskId: string) => Promise<TaskTrace | null> };
}

const EXHAUSTED = 'The task could not be completed after several attempts; no credits were charged.';
const NO_GROUP_LIMIT = 1_000_000;

/**
 * Runs generation jobs (one upstream call each) and status-check jobs (one short check of a long-running
 * upstream job each, rescheduled until it ends); dead-lettered jobs end their task in fail.
 */
export async function startGenerationWorker(boss: PgBoss, gengate: Pick<GengateUseCases, 'executeTask' | 'failTask'>, opts: GenerationWorkerOptions): Promise<GenerationWorker> {
  const shutdown = new AbortController();
  const tracing = opts.tracing;
  // With tracing off a job runs as it is; on, under its task's trace (one read of the task's trace context;
  // when that read fails, e.g. tasks kept in replaced stores, the job runs in a trace of its own, never fails for it).
  const traced = <T>(job: TracedJob, run: () => Promise<T>): Promise<T> =>
    tracing
      ? tracing.taskOf(job.taskId).then(
          (task) => tracing.tracing.job(job, task, run),
          () => tracing.tracing.job(job, null, run),
        )
      : run();
  const log = opts.logger.child({ component: 'generation-worker' });
  const tiers = Object.fromEntries(
    (opts.providerIds ?? []).flatMap((id) => {
      const max = opts.providerLimits?.(id).maxConcurrent ?? null;
      return max === null ? [] : [[id, max]];
    }),
  );

  // Generation jobs run on gengate's own loop over pg-boss's fetch (startJobDispatcher): one fetch for
  // every free slot, one poll per interval for the process, no completion after the task's end completed
  // the job in its own commit. New jobs wake it through NOTIFY (JobWakeups); polling finds delayed jobs.
  // The fetch returns pg-boss's metadata only for tracing (the queue wait starts at the job's readyAt).
  const generate = async (job: Job<GenerateJob>, signal: AbortSignal, ready: Date | null): Promise<void> => {
    const run = () => gengate.executeTask.runGeneration(job.data.taskId, AbortSignal.any([shutdown.signal, signal]));
    const outcome = await (ready === null ? run() : traced({ kind: 'generate', taskId: job.data.taskId, readyAt: ready }, run));
    log.debug({ taskId: job.data.taskId, outcome }, 'generation job done');
  };
  const dispatch = {
    queue: QUEUES.generate,
    slots: opts.concurrency ?? 32,
    pollingIntervalMs: 500,
    ...(opts.fetchPool ? { fetchDb: unflushedFetchDb(opts.fetchPool) } : {}),
    ...(Object.keys(tiers).length > 0 ? { groupConcurrency: { default: NO_GROUP_LIMIT, tiers } } : {}),
    logger: opts.logger,
  };
  const generation = tracing
    ? startJobDispatcher<GenerateJob>(boss, { ...dispatch, handle: (job, signal) => generate(job, signal, readyAt(job)) })
    : startJobDispatcher<GenerateJob, Job<GenerateJob>>(boss, { ...dispatch, metadata: false, handle: (job, signal) => generate(job, signal, null) });
  // Status checks are short and alike: fetched in batches of up to 8, run together, and fetched again at
  // once while batches come back full (pg-boss's burst mode), so a backlog of due checks drains at the
  // speed of the checks themselves, not of the polling interval. Each job is settled on its own.
  const batch = Math.min(8, opts.checkConcurrency ?? 16);
  const checkOptions = {
    batchSize: batch,
    localConcurrency: Math.max(1, Math.ceil((opts.checkConcurrency ?? 16) / batch)),
    burstWhenBatchFull: true,
    perJobResults: true,
    includeMetadata: true,
    pollingIntervalSeconds: 0.5,
    notifyPollingIntervalSeconds: 0.5,
  } as const;
  await boss.work<CheckJob, JobResult[], typeof checkOptions>(QUEUES.check, checkOptions, async (jobs: JobWithMetadata<CheckJob>[]) =>
    Promise.all(
      jobs.map(async (job): Promise<JobResult> => {
        try {
          const signal = AbortSignal.any([shutdown.signal, job.signal]);
          const run = () => runAsJob({ queue: QUEUES.check, id: job.id, attempt: job.retryCount }, () => gengate.executeTask.checkStatus(job.data.taskId, job.data.checkNumber, signal));
          const outcome = await traced({ kind: 'check', taskId: job.data.taskId, checkNumber: job.data.checkNumber, readyAt: readyAt(job) }, run);
          log.debug({ taskId: job.data.taskId, check: job.data.checkNumber, outcome }, 'status check done');
          return { id: job.id, status: 'completed' };
        } catch (err) {
          // Cut off by shutdown (or a database error): pg-boss retries this check.
          return { id: job.id, status: 'failed', output: { message: (err as Error).message } };
        }
      }),
    ),
  );
  await boss.work<GenerateJob>(QUEUES.generateDead, { batchSize: 1, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const ended = await gengate.failTask.execute(job.data.taskId, EXHAUSTED);
      if (ended) log.warn({ taskId: job.data.taskId }, 'task failed after its jobs were exhausted');
    }
  });

  return {
    async stop(stopOpts) {
      const generationStopped = generation.stop();
      for (const q of [QUEUES.check, QUEUES.generateDead]) await boss.offWork(q, { wait: false }).catch(() => undefined);
      const grace = stopOpts?.graceMs ?? 0;
      const timer = setTimeout(() => shutdown.abort(new Error('worker shutting down')), grace);
      await Promise.all([generationStopped, boss.offWork(QUEUES.check, { wait: true }).catch(() => undefined)]);
      clearTimeout(timer);
      shutdown.abort(new Error('worker stopped'));
    },
  };
}

/** When a job could first run: the later of its creation and its startAfter (a delayed job waits from then). */
function readyAt(job: { createdOn: Date; startAfter: Date }): Date {
  return job.startAfter.getTime() > job.createdOn.getTime() ? job.startAfter : job.createdOn;
}
