import type { DashboardAuth, SignInLinkQueue, SignInLinkRequest } from '@gengate/core/internal';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { wakeWorkers } from '../postgres/job-wakeups.js';
import { QUEUES } from '../postgres/boss-queues.js';

/**
 * Link requests as pg-boss jobs. The worker runs in the process that serves the dashboard (it starts with
 * it), so a request wakes it in-process at once; other processes' workers poll.
 */
export function pgSignInLinkQueue(boss: PgBoss): SignInLinkQueue {
  return {
    async enqueue(request) {
      const id = await boss.send(QUEUES.signInMail, { ...request });
      if (id === null) throw new Error(`pg-boss refused a job for queue ${QUEUES.signInMail}`);
      wakeWorkers(boss, QUEUES.signInMail, 1);
    },
  };
}

/**
 * Mails the sign-in links asked for through POST /dashboard/api/auth/link, after the request was answered
 * (so no answer or its timing depends on whether the address has an account). A failed send is retried
 * by pg-boss with backoff; the request's link and its place in the hourly count are given back first.
 */
export async function startSignInMailWorker(boss: PgBoss, auth: Pick<DashboardAuth, 'sendLink'>, logger: Logger): Promise<{ stop(): Promise<void> }> {
  await boss.work<SignInLinkRequest>(QUEUES.signInMail, { batchSize: 1, localConcurrency: 2, pollingIntervalSeconds: 2, burstWhenReadyExceeds: 1 }, async (jobs) => {
    for (const job of jobs) {
      try {
        const outcome = await auth.sendLink(job.data);
        logger.debug({ outcome }, 'sign-in link request handled');
      } catch (err) {
        // No address in the log line; pg-boss keeps the error on the job and retries it.
        logger.warn({ err, jobId: job.id, retryCount: job.retryCount }, 'sending a sign-in link failed; it will be retried');
        throw err;
      }
    }
  });
  return {
    async stop() {
      await boss.offWork(QUEUES.signInMail, { wait: true });
    },
  };
}
