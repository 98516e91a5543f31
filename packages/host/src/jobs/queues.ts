import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';

export const QUEUES = {
  generate: 'gengate-generate',
  check: 'gengate-check',
  generateDead: 'gengate-generate-dead',
  callback: 'gengate-callback',
  alertMail: 'gengate-alert-mail',
  maintenance: 'gengate-maintenance',
} as const;

export interface BossOptions {
  readonly connectionString: string;
  readonly logger: Logger;
  /** Longest time one generation step may hold its job before it is expired and retried. */
  readonly generateExpireSeconds?: number;
  /** Without a heartbeat for this long, a job whose worker died is failed and retried. Minimum 10. */
  readonly heartbeatSeconds?: number;
  /** First callback retry delay; doubles each retry (with jitter) up to one hour. Default 10. */
  readonly callbackRetryDelaySeconds?: number;
  /** Total deadline of one callback attempt; a callback job expires a minute after it. Default 10 000. */
  readonly callbackTimeoutMs?: number;
}

/**
 * Starts pg-boss and creates the queues (pg-boss drops jobs sent to a queue that does not exist).
 * `generate` runs upstream calls (one-shot generations and starts of long-running jobs); `check` runs the
 * short, scheduled status checks of long-running jobs. Both use LISTEN/NOTIFY so an idle worker starts a
 * new job at once. Upstream failures are retried by gengate itself (a new job after a backoff, within
 * the task's deadline); pg-boss's own retries cover a worker that died mid-job, and exhausted jobs are
 * dead-lettered so their tasks end in `fail`.
 */
export async function createBoss(opts: BossOptions): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: opts.connectionString,
    useListenNotify: true,
    max: 10,
    superviseIntervalSeconds: 5,
    // Queue stats (ready counts) fresh every 2 s: workers switch to continuous fetching while a backlog is waiting.
    monitorIntervalSeconds: 2,
    queueCacheIntervalSeconds: 2,
  });
  boss.on('error', (err: unknown) => opts.logger.error({ err }, 'pg-boss error'));
  await boss.start();
  await boss.createQueue(QUEUES.generateDead, { retryLimit: 3, retryDelay: 5, retryBackoff: true });
  await boss.createQueue(QUEUES.generate, {
    retryLimit: 3,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 60,
    expireInSeconds: opts.generateExpireSeconds ?? 20 * 60,
    heartbeatSeconds: opts.heartbeatSeconds ?? 10,
    deadLetter: QUEUES.generateDead,
    notify: true,
  });
  await boss.createQueue(QUEUES.check, {
    retryLimit: 5,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 60,
    expireInSeconds: 5 * 60,
    heartbeatSeconds: opts.heartbeatSeconds ?? 10,
    deadLetter: QUEUES.generateDead,
    notify: true,
  });
  // 10 s doubling to a 1 h cap over 35 retries: attempts keep coming for more than 24 hours.
  // An attempt ends by its own deadline; the job expires a minute later (a worker that died mid-attempt).
  const callbackQueue = {
    retryLimit: 35,
    retryDelay: opts.callbackRetryDelaySeconds ?? 10,
    retryBackoff: true,
    retryDelayMax: 3_600,
    expireInSeconds: Math.ceil((opts.callbackTimeoutMs ?? 10_000) / 1000) + 60,
    retentionSeconds: 2 * 86_400,
    notify: true,
  };
  await boss.createQueue(QUEUES.callback, callbackQueue);
  // createQueue keeps an existing queue's settings: bring them up to date.
  await boss.updateQueue(QUEUES.callback, callbackQueue);
  await boss.createQueue(QUEUES.alertMail, { retryLimit: 10, retryDelay: 10, retryBackoff: true, notify: true });
  return boss;
}
