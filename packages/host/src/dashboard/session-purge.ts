import type { DashboardAuth } from '@gengate/core/internal';
import type { Logger } from 'pino';

/** Deletes expired sessions and sign-in links now and then every `intervalMs` (each process may run it: the delete is idempotent). */
export function startSessionPurge(auth: DashboardAuth, logger: Logger, intervalMs = 15 * 60_000): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const purge = () => {
    running = auth.purgeExpired().then(
      (n) => {
        if (n.sessions + n.tokens > 0) logger.info(n, 'expired dashboard sessions and sign-in links purged');
      },
      (err: unknown) => logger.warn({ err }, 'purging expired dashboard sessions failed'),
    );
  };
  purge();
  const timer = setInterval(purge, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
