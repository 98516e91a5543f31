import type { SendAlertMail } from '@gengate/core';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { QUEUES } from './queues.js';

interface AlertMailJob {
  alertId: string;
  balanceMicro: number;
}

/**
 * Sends balance alert mails. The job is enqueued in the ledger transaction that crossed the threshold,
 * so no mail is lost to a crash, and SMTP never holds a database transaction open; a failed send is
 * retried by pg-boss with backoff.
 */
export async function startAlertMailWorker(boss: PgBoss, sendAlertMail: SendAlertMail, logger: Logger): Promise<{ stop(): Promise<void> }> {
  await boss.work<AlertMailJob>(QUEUES.alertMail, { batchSize: 1, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const sent = await sendAlertMail.execute(job.data.alertId, job.data.balanceMicro);
      logger.info({ alertId: job.data.alertId, sent }, sent ? 'balance alert mail sent' : 'balance alert no longer exists; no mail');
    }
  });
  return { stop: () => boss.offWork(QUEUES.alertMail, { wait: true }) };
}
