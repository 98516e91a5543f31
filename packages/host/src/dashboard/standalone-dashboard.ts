import { createDashboardServices, type Gengate, type Mailer } from '@gengate/core';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { PgAccountDirectory } from '../postgres/pg-account-directory.js';
import { PgSessionStore } from '../postgres/pg-session-store.js';
import type { DashboardSettings } from './dashboard-settings.js';
import { bossQueueInspector } from './boss-queue-inspector.js';
import { createDashboard, type Dashboard } from './create-dashboard.js';
import { pgSignInLinkQueue, startSignInMailWorker } from '../jobs/sign-in-mail-worker.js';
import { startSessionPurge } from './session-purge.js';

export interface StandaloneDashboardOptions {
  readonly settings: DashboardSettings;
  readonly gengate: Gengate;
  readonly pool: pg.Pool;
  /** gengate's schema (the name runMigrations used). */
  readonly schema: string;
  readonly boss: PgBoss;
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly publicUrl: () => string;
  readonly paymentProcessor: string;
}

/**
 * The dashboard of the standalone host: sessions and roles in PostgreSQL, queue depth from pg-boss, expired
 * sessions purged, sign-in links mailed from a pg-boss queue by a worker started here.
 */
export function createStandaloneDashboard(o: StandaloneDashboardOptions): Dashboard & { stop(): Promise<void> } {
  const services = createDashboardServices({
    gengate: o.gengate,
    sessions: new PgSessionStore(o.pool, o.schema),
    directory: new PgAccountDirectory(o.pool, o.schema),
    mailer: o.mailer,
    queues: bossQueueInspector(o.boss),
    linkQueue: pgSignInLinkQueue(o.boss),
    options: {
      openSignup: o.settings.openSignup,
      signupCredits: o.settings.signupCredits,
      linkTtlMs: o.settings.linkTtlMs,
      sessionTtlMs: o.settings.sessionTtlMs,
      linkUrl: (token) => `${o.publicUrl()}/dashboard/sign-in#token=${token}`,
    },
  });
  const purge = startSessionPurge(services.auth, o.logger);
  // The sign-in mails are sent by the process that serves the dashboard (it has the dashboard's settings).
  const mailWorker = startSignInMailWorker(o.boss, services.auth, o.logger).catch((err: unknown) => {
    o.logger.error({ err }, 'the sign-in mail worker did not start: sign-in links are queued but not sent');
    return null;
  });
  const dashboard = createDashboard({ services, logger: o.logger, publicUrl: o.publicUrl, paymentProcessor: o.paymentProcessor });
  return {
    ...dashboard,
    async stop() {
      await Promise.all([purge.stop(), mailWorker.then((w) => w?.stop())]);
    },
  };
}
