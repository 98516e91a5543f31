import { PgBoss, type Queue } from 'pg-boss';

/** A queue's settings that createQueue and updateQueue both take. */
type QueueSettings = Omit<Queue, 'name' | 'partition' | 'policy'>;
import type { Logger } from 'pino';
import { asClientConfig, type ConnectionSettings } from './connection-settings.js';

export const QUEUES = {
  generate: 'gengate-generate',
  check: 'gengate-check',
  generateDead: 'gengate-generate-dead',
  callback: 'gengate-callback',
  alertMail: 'gengate-alert-mail',
  signInMail: 'gengate-sign-in-mail',
  maintenance: 'gengate-maintenance',
} as const;

/** pg-boss's schema (its default). */
export const BOSS_SCHEMA = 'pgboss';

export interface BossOptions {
  /** A URL, or the settings of the pool an embedder gave (connectionSettingsOf). */
  readonly connectionString: ConnectionSettings;
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
 * short, scheduled status checks of long-running jobs. Jobs are inserted without pg-boss's in-transaction
 * NOTIFY (it serializes commits database-wide); JobWakeups wakes the workers after the commit instead. Upstream failures are retried by gengate itself (a new job after a backoff, within
 * the task's deadline); pg-boss's own retries cover a worker that died mid-job, and exhausted jobs are
 * dead-lettered so their tasks end in `fail`.
 */
export async function createBoss(opts: BossOptions): Promise<PgBoss> {
  const boss = newBoss(opts);
  await startBoss(boss, opts);
  return boss;
}

/** A pg-boss instance with gengate's settings, not yet started (stores can hold it before the queue starts). */
export function newBoss(opts: Pick<BossOptions, 'connectionString' | 'logger'>): PgBoss {
  const { ssl, ...connection } = asClientConfig(opts.connectionString);
  const boss = new PgBoss({
    ...connection,
    ...(ssl !== undefined ? { ssl } : {}),
    schema: BOSS_SCHEMA,
    useListenNotify: true,
    max: 10,
    superviseIntervalSeconds: 5,
    // Queue stats (ready counts) fresh every 2 s: workers switch to continuous fetching while a backlog is waiting.
    monitorIntervalSeconds: 2,
    queueCacheIntervalSeconds: 2,
  });
  boss.on('error', (err: unknown) => opts.logger.error({ err }, 'pg-boss error'));
  return boss;
}

/** Starts pg-boss (it creates or migrates its own schema) and creates or updates gengate's queues. */
export async function startBoss(boss: PgBoss, opts: BossOptions): Promise<void> {
  await boss.start();
  await boss.createQueue(QUEUES.generateDead, { retryLimit: 3, retryDelay: 5, retryBackoff: true });
  const queues: [string, QueueSettings][] = [
    [
      QUEUES.generate,
      {
        retryLimit: 3,
        retryDelay: 2,
        retryBackoff: true,
        retryDelayMax: 60,
        expireInSeconds: opts.generateExpireSeconds ?? 20 * 60,
        heartbeatSeconds: opts.heartbeatSeconds ?? 10,
        deadLetter: QUEUES.generateDead,
        notify: false,
      },
    ],
    [
      QUEUES.check,
      {
        retryLimit: 5,
        retryDelay: 2,
        retryBackoff: true,
        retryDelayMax: 60,
        expireInSeconds: 5 * 60,
        heartbeatSeconds: opts.heartbeatSeconds ?? 10,
        deadLetter: QUEUES.generateDead,
        notify: false,
      },
    ],
    // 10 s doubling to a 1 h cap over 35 retries: attempts keep coming for more than 24 hours.
    // An attempt ends by its own deadline; the job expires a minute later (a worker that died mid-attempt).
    [
      QUEUES.callback,
      {
        retryLimit: 35,
        retryDelay: opts.callbackRetryDelaySeconds ?? 10,
        retryBackoff: true,
        retryDelayMax: 3_600,
        expireInSeconds: Math.ceil((opts.callbackTimeoutMs ?? 10_000) / 1000) + 60,
        retentionSeconds: 2 * 86_400,
        notify: false,
      },
    ],
    [QUEUES.alertMail, { retryLimit: 10, retryDelay: 10, retryBackoff: true, notify: false }],
    // A sign-in link is worth something for its TTL only; the jobs hold e-mail addresses, so none is kept long.
    [QUEUES.signInMail, { retryLimit: 4, retryDelay: 5, retryBackoff: true, retryDelayMax: 120, expireInSeconds: 60, retentionSeconds: 3_600, deleteAfterSeconds: 3_600, notify: false }],
  ];
  for (const [name, options] of queues) {
    await boss.createQueue(name, options);
    // createQueue keeps an existing queue's settings: bring them up to date.
    await boss.updateQueue(name, options);
  }
}
