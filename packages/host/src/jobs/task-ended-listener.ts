import type { Gengate } from '@gengate/core';
import pg from 'pg';
import type { Logger } from 'pino';
import { asClientConfig, type ConnectionSettings } from '../postgres/connection-settings.js';

/**
 * Listens for tasks ended elsewhere (a cancel on another API process, a revoke, the sweep): the
 * `tasks_notify_fail` trigger NOTIFYs `gengate_task_ended`, and this process aborts its in-flight
 * upstream call for that task at once. Reconnects after a lost connection.
 */
export async function startTaskEndedListener(connectionString: ConnectionSettings, gengate: Gengate, logger: Logger): Promise<{ stop(): Promise<void> }> {
  const log = logger.child({ component: 'task-ended-listener' });
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const c = new pg.Client(asClientConfig(connectionString));
    c.on('notification', (msg) => {
      if (msg.channel === 'gengate_task_ended' && msg.payload && gengate.inflight.abort(msg.payload, 'cancelled')) {
        log.info({ taskId: msg.payload }, 'aborted the in-flight upstream call of a task ended elsewhere');
      }
    });
    c.on('error', (err) => {
      log.warn({ err: err.message }, 'task-ended listener connection lost; reconnecting');
      client = null;
      c.end().catch(() => undefined);
      if (!stopped) retry = setTimeout(() => void connect().catch(() => undefined), 1_000);
    });
    await c.connect();
    await c.query('listen gengate_task_ended');
    client = c;
  };
  await connect();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
