import type { BlobStore, SweepTasks } from '@gengate/core';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Queryable } from '../postgres/queryable.js';
import {
  deleteFilesOfFailedTasks,
  expirePendingTopups,
  foldUsagePending,
  purgeCallbackAttempts,
  purgeIdempotencyKeys,
  recountActiveTasks,
} from '../postgres/sql/maintenance.js';
import { purgeEndedTasks } from '../postgres/sql/retention.js';
import { deleteTaskFiles } from '../storage/delete-task-files.js';
import { BOSS_SCHEMA, QUEUES } from '../postgres/boss-queues.js';

export interface MaintenanceContext {
  readonly db: Queryable;
  /** gengate's schema (the name runMigrations used). */
  readonly schema: string;
  readonly blobStore: BlobStore;
  readonly logger: Logger;
}

/** One step of the sweep; returns how many rows (or tasks) it handled. A step that throws does not stop the others. */
export interface MaintenanceStep {
  readonly name: string;
  run(ctx: MaintenanceContext): Promise<number>;
}

export interface MaintenanceSettings {
  /** Callback delivery attempts older than this are deleted. */
  readonly callbackAttemptRetentionDays: number;
  /**
   * How long after a task ended a worker may still store its files (the longest generation attempt):
   * the files of a failed task are deleted until then, then it is marked swept.
   */
  readonly lateWriteSeconds: number;
  /** How long a pending top-up can still be paid, per payment method; older ones are marked failed. */
  readonly pendingTopupTtlSeconds: Readonly<Partial<Record<'stripe' | 'manual', number>>>;
}

/** Run responses are remembered for 24 hours (IdempotencyStore). */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3_600;

/**
 * The standard steps on the database and blob store. The host adds `taskSweepStep`; add your own by
 * passing `[...defaultMaintenanceSteps(s), { name, run }]` to startMaintenanceWorker.
 */
export function defaultMaintenanceSteps(s: MaintenanceSettings): MaintenanceStep[] {
  return [
    { name: 'purge-idempotency-keys', run: ({ db, schema }) => purgeIdempotencyKeys(db, schema, IDEMPOTENCY_RETENTION_SECONDS) },
    { name: 'purge-callback-attempts', run: ({ db, schema }) => purgeCallbackAttempts(db, schema, s.callbackAttemptRetentionDays * 86_400) },
    {
      name: 'delete-files-of-failed-tasks',
      run: ({ db, schema, blobStore }) => deleteFilesOfFailedTasks(db, schema, s.lateWriteSeconds, (taskId) => deleteTaskFiles(blobStore, taskId)),
    },
    { name: 'expire-pending-topups', run: ({ db, schema }) => expirePendingTopups(db, schema, s.pendingTopupTtlSeconds) },
    { name: 'recount-active-tasks', run: ({ db, schema }) => recountActiveTasks(db, schema) },
    // A process that runs generation jobs folds every few seconds (usage-folder.ts); this covers a deployment without one.
    { name: 'fold-usage-pending', run: ({ db, schema }) => foldUsagePending(db, schema) },
  ];
}

/**
 * Ends tasks stuck past their deadline (a worker died and its job's dead-letter handling failed too),
 * releasing their holds, and admits queued tasks of users with free running slots.
 */
export function taskSweepStep(sweep: Pick<SweepTasks, 'execute'>): MaintenanceStep {
  return {
    name: 'end-stuck-tasks-and-admit-queued',
    run: async () => {
      const { failed, admitted } = await sweep.execute();
      return failed.length + admitted.length;
    },
  };
}

/**
 * Retention: ended tasks older than `retentionSeconds` are purged with their files, holds, callback
 * attempts and finished job rows, in short batches (postgres/sql/retention.ts). The ledger is kept.
 */
export function retentionStep(o: { retentionSeconds: number; bossSchema?: string }): MaintenanceStep {
  return {
    name: 'purge-ended-tasks',
    run: async ({ db, schema, blobStore }) => {
      const { tasks } = await purgeEndedTasks(db, (taskId) => deleteTaskFiles(blobStore, taskId), {
        retentionSeconds: o.retentionSeconds,
        schema,
        bossSchema: o.bossSchema ?? BOSS_SCHEMA,
        queues: Object.values(QUEUES),
      });
      return tasks;
    },
  };
}

/** Runs every step once, each on its own; returns what each did (a count, or the error message). */
export async function runMaintenance(steps: readonly MaintenanceStep[], ctx: MaintenanceContext): Promise<Record<string, number | string>> {
  const report: Record<string, number | string> = {};
  for (const step of steps) {
    try {
      report[step.name] = await step.run(ctx);
    } catch (err) {
      report[step.name] = `failed: ${(err as Error).message}`;
      ctx.logger.error({ err, step: step.name }, 'maintenance step failed');
    }
  }
  return report;
}

export interface MaintenanceWorker {
  /** Stops taking jobs; waits up to graceMs for a running sweep (one cut off is simply run again later). */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

/**
 * The periodic sweep: a pg-boss schedule (cron, UTC) puts one job on the maintenance queue, which one
 * worker of the deployment runs. The queue's exclusive policy keeps one sweep queued or running at a time.
 */
export async function startMaintenanceWorker(
  boss: PgBoss,
  ctx: MaintenanceContext,
  opts: { cron: string; steps: readonly MaintenanceStep[] },
): Promise<MaintenanceWorker> {
  const log = ctx.logger.child({ component: 'maintenance' });
  await boss.createQueue(QUEUES.maintenance, { policy: 'exclusive', retryLimit: 1, expireInSeconds: 15 * 60, notify: true });
  await boss.schedule(QUEUES.maintenance, opts.cron, null, { tz: 'UTC' });
  await boss.work(QUEUES.maintenance, { batchSize: 1, pollingIntervalSeconds: 30 }, async () => {
    const report = await runMaintenance(opts.steps, { ...ctx, logger: log });
    log.info({ report }, 'maintenance sweep done');
  });
  return {
    async stop(stopOpts) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, stopOpts?.graceMs ?? 0);
      });
      await Promise.race([boss.offWork(QUEUES.maintenance, { wait: true }), grace]);
      clearTimeout(timer);
    },
  };
}
