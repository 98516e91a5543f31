import type { GengateUseCases } from '@gengate/core';
import pg from 'pg';
import type { Logger } from 'pino';
import { asClientConfig, type ConnectionSettings } from '../postgres/connection-settings.js';
import { JOBS_READY_CHANNEL, locallyWokenQueues, parseJobsReady, wakeWorkers, type WorkerWaker } from '../postgres/job-wakeups.js';

const TASK_ENDED_CHANNEL = 'gengate_task_ended';

/**
 * What a worker process hears from the others, on one LISTEN connection that reconnects after a loss:
 * - `gengate_task_ended` (the `tasks_notify_fail` trigger: a cancel on another API process, a revoke, the
 *   sweep): this process aborts its in-flight upstream call for that task at once;
 * - `gengate_jobs_ready` (JobWakeups, after a job's transaction committed): this process wakes as many of
 *   its workers of that queue as there are new jobs. After a reconnect, one worker per queue fetches once,
 *   for what was announced while the connection was down (polling would find it too, later).
 */
export async function startWorkerNotifications(connectionString: ConnectionSettings, deps: { gengate: Pick<GengateUseCases, 'inflight'>; boss: WorkerWaker }, logger: Logger): Promise<{ stop(): Promise<void> }> {
  const log = logger.child({ component: 'worker-notifications' });
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (reconnecting: boolean): Promise<void> => {
    const c = new pg.Client(asClientConfig(connectionString));
    c.on('notification', (msg) => {
      if (msg.channel === JOBS_READY_CHANNEL) {
        const ready = parseJobsReady(msg.payload);
        if (ready) wakeWorkers(deps.boss, ready.queue, ready.jobs);
      } else if (msg.channel === TASK_ENDED_CHANNEL && msg.payload && deps.gengate.inflight.abort(msg.payload, 'cancelled')) {
        log.info({ taskId: msg.payload }, 'aborted the in-flight upstream call of a task ended elsewhere');
      }
    });
    c.on('error', (err) => {
      log.warn({ err: err.message }, 'worker notification connection lost; reconnecting');
      client = null;
      c.end().catch(() => undefined);
      if (!stopped) retry = setTimeout(() => void connect(true).catch(() => undefined), 1_000);
    });
    await c.connect();
    await c.query(`listen ${TASK_ENDED_CHANNEL}; listen ${JOBS_READY_CHANNEL}`);
    client = c;
    if (reconnecting) for (const queue of new Set([...deps.boss.getWipData().map((w) => w.name), ...locallyWokenQueues(deps.boss)])) wakeWorkers(deps.boss, queue, 1);
  };
  await connect(false);
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
