import type { KeyBudgetMail } from '@gengate/core';
import type { SendAlertMail, SendKeyBudgetMail } from '@gengate/core/internal';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../ops/gengate-metrics.js';
import { QUEUES } from '../postgres/boss-queues.js';

/** A balance alert's mail, or (migration 019) a key's soft-threshold mail. */
type AlertMailJob = { alertId: string; balanceMicro: number; keyMail?: undefined } | { keyMail: KeyBudgetMail };

/**
 * Sends balance alert mails. The job is enqueued in the ledger transaction that crossed the threshold,
 * so no mail is lost to a crash, and SMTP never holds a database transaction open; a failed send is
 * retried by pg-boss with backoff.
 */
export async function startAlertMailWorker(
  boss: PgBoss,
  sendAlertMail: SendAlertMail,
  logger: Logger,
  metrics?: Pick<WorkerMetrics, 'mailSent'>,
  sendKeyBudgetMail?: SendKeyBudgetMail,
): Promise<{ stop(opts?: { graceMs?: number }): Promise<void> }> {
  await boss.work<AlertMailJob>(QUEUES.alertMail, { batchSize: 1, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      if (job.data.keyMail !== undefined) {
        const sent = sendKeyBudgetMail ? await sendKeyBudgetMail.execute(job.data.keyMail) : false;
        if (sent) metrics?.mailSent();
        logger.info({ apiKeyId: job.data.keyMail.keyId, sent }, sent ? 'key budget mail sent' : 'key budget mail not sent (key revoked or no sender)');
        continue;
      }
      const sent = await sendAlertMail.execute(job.data.alertId, job.data.balanceMicro);
      if (sent) metrics?.mailSent();
      logger.info({ alertId: job.data.alertId, sent }, sent ? 'balance alert mail sent' : 'balance alert no longer exists; no mail');
    }
  });
  return {
    /**
     * Stops taking jobs and waits up to graceMs for a mail being sent. A send still running then is left:
     * its job is not completed, so pg-boss hands it to the next process once it expires.
     */
    async stop(opts) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, opts?.graceMs ?? 0);
      });
      await Promise.race([boss.offWork(QUEUES.alertMail, { wait: true }), grace]);
      clearTimeout(timer);
    },
  };
}
