import type { BlobStore, GengateUseCases, Mailer, OrganizationStore, ResultUrlResolver } from '@gengate/core';
import { SendAlertMail, SendKeyBudgetMail } from '@gengate/core/internal';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { CallbackRepository } from '../callbacks/callback-repository.js';
import { startAlertMailWorker } from '../jobs/alert-mail-worker.js';
import { startCallbackWorker } from '../jobs/callback-worker.js';
import { startGenerationWorker } from '../jobs/generation-worker.js';
import { defaultMaintenanceSteps, retentionStep, startMaintenanceWorker, taskSweepStep } from '../jobs/maintenance-worker.js';
import { startUsageFolder } from '../jobs/usage-folder.js';
import { startWorkerNotifications } from '../jobs/worker-notifications.js';
import type { WorkerMetrics } from '../ops/gengate-metrics.js';
import { STRIPE_CHECKOUT_TTL_SECONDS } from '../payments/stripe-checkout-ttl.js';
import type { ConnectionSettings } from '../postgres/connection-settings.js';
import type { HostWorkerSelection } from './gengate-host-options.js';
import type { GraceDeadline } from './grace-deadline.js';
import type { GengateHostSettings } from './host-settings.js';
import { taskTraceReader } from '../postgres/task-trace-query.js';
import type { HostTracing } from '../tracing/host-tracing.js';

export interface HostWorkerDeps {
  readonly boss: PgBoss;
  readonly gengate: GengateUseCases;
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly connection: ConnectionSettings;
  readonly blobStore: BlobStore;
  readonly callbacks: CallbackRepository;
  readonly resultUrls: ResultUrlResolver;
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly settings: GengateHostSettings;
  readonly generateExpireSeconds: number;
  readonly metrics: Pick<WorkerMetrics, 'callback' | 'mailSent'>;
  /** The API's absolute URL (public URL plus mount path), named in the alert mail's top-up hint. */
  readonly apiUrl: () => string;
  /** The host's traces; null when tracing is off (the workers then build no span). */
  readonly tracing?: HostTracing | null;
  /** Who a balance alert mails: the owners of a (non-personal) organization. */
  readonly organizations: OrganizationStore;
}

export interface HostWorkers {
  /** Stops every worker started, each within what is left of the shared grace. */
  stop(grace: GraceDeadline): Promise<void>;
}

/** The queue workers of a process that runs jobs (roles `worker` and `all`). */
export async function startHostWorkers(d: HostWorkerDeps, which: HostWorkerSelection): Promise<HostWorkers> {
  const { boss, gengate, logger, settings } = d;
  const generation = which.generation ?? true;
  const worker = generation
    ? await startGenerationWorker(boss, gengate, {
        concurrency: settings.workerConcurrency,
        checkConcurrency: settings.checkConcurrency,
        providerLimits: (id) => settings.providerLimits(id),
        providerIds: gengate.registry.adapters().map((a) => a.providerId),
        fetchPool: d.pool,
        logger,
        ...(d.tracing ? { tracing: { tracing: d.tracing, taskOf: taskTraceReader(d.pool, d.schema) } } : {}),
      })
    : null;
  // Where tasks end, their usage is folded into the rollups every few seconds (migration 032).
  const usageFolder = generation ? startUsageFolder(d.pool, d.schema, { logger }) : null;
  // Where workers run: job wake-ups after other processes' commits, and a cancel reaching any API
  // process aborts the upstream call of a generation running here at once.
  const anyWorker = generation || (which.callbacks ?? true) || (which.mail ?? true) || (which.maintenance ?? true);
  const notifications = anyWorker ? await startWorkerNotifications(d.connection, { gengate, boss }, logger) : null;
  const callbackWorker =
    (which.callbacks ?? true)
      ? await startCallbackWorker(
          boss,
          { callbacks: d.callbacks, urls: d.resultUrls },
          {
            allowPrivate: settings.callbacks.allowPrivate,
            timeoutMs: settings.callbacks.timeoutMs,
            concurrency: settings.callbacks.concurrency,
            perUserConcurrency: settings.callbacks.perUserConcurrency,
            fetchPool: d.pool,
            logger,
            metrics: d.metrics,
          },
        )
      : null;
  const { stores } = gengate;
  const mailWorker = (which.mail ?? true) ? await startAlertMailWorker(boss, new SendAlertMail(stores.alerts, stores.users, d.organizations, d.mailer, `${d.apiUrl()}/billing/topup`), logger, d.metrics, new SendKeyBudgetMail(stores.keys, stores.users, d.mailer)) : null;
  const maintenanceWorker =
    (which.maintenance ?? true)
      ? await startMaintenanceWorker(
          boss,
          { db: d.pool, schema: d.schema, blobStore: d.blobStore, logger },
          {
            cron: settings.maintenanceCron,
            steps: [
              ...defaultMaintenanceSteps({
                callbackAttemptRetentionDays: settings.callbacks.attemptRetentionDays,
                lateWriteSeconds: d.generateExpireSeconds,
                // A Stripe session cannot be paid after its expiry; an hour more covers a late webhook.
                pendingTopupTtlSeconds: { stripe: STRIPE_CHECKOUT_TTL_SECONDS + 3_600, manual: settings.manualTopupExpiryHours * 3_600 },
              }),
              taskSweepStep(gengate.sweepTasks),
              ...(settings.retentionDays === null ? [] : [retentionStep({ retentionSeconds: settings.retentionDays * 86_400 })]),
            ],
          },
        )
      : null;
  let stopping: Promise<unknown> | null = null;
  return {
    async stop(grace) {
      // Once: a second call (close() after stopWorkers()) waits for the first.
      stopping ??= Promise.all([
        grace.bounded(worker?.stop({ graceMs: grace.remaining() }), 'generation worker'),
        grace.bounded(usageFolder?.stop(), 'usage folder'),
        grace.bounded(callbackWorker?.stop({ graceMs: grace.remaining() }), 'callback worker'),
        grace.bounded(mailWorker?.stop({ graceMs: grace.remaining() }), 'mail worker'),
        grace.bounded(maintenanceWorker?.stop({ graceMs: grace.remaining() }), 'maintenance worker'),
        grace.bounded(notifications?.stop(), 'worker notifications'),
      ]);
      await stopping;
    },
  };
}
