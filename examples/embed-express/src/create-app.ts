import { createSandboxAdapter } from '@gengate/adapters';
import type { AcceptedProviderAdapter } from '@gengate/core';
import { createGengateHost, type GengateHost } from '@gengate/host';
import express, { type Express } from 'express';
import pg from 'pg';
import type { Logger } from 'pino';
import { migrateAppTables } from './app-database.js';
import { gengateUserSeam } from './gengate-user-seam.js';
import { homePage } from './home-page.js';
import { SessionStore } from './sessions.js';
import { signInRoutes } from './sign-in-routes.js';

export interface AppOptions {
  readonly databaseUrl: string;
  /** Where browsers reach the app, e.g. https://app.example.com (read each time: may be known only after listening). */
  readonly publicUrl: () => string;
  /** Where gengate keeps result files. */
  readonly filesDir: string;
  /** Credits a user gets the first time they use gengate. */
  readonly signupCredits?: number;
  readonly adapters?: readonly AcceptedProviderAdapter[];
  readonly logger?: Logger;
  readonly shutdownGraceMs?: number;
}

export interface App {
  readonly app: Express;
  readonly pool: pg.Pool;
  readonly gengate: GengateHost;
  /**
   * Creates the app's tables and gengate's and starts gengate's queue; with `workers` (default true)
   * also its workers. Web processes of a larger deployment pass false and leave jobs to worker processes.
   */
  start(opts?: { workers?: boolean }): Promise<void>;
  /** Stops gengate's workers and queue, then the pool (close the HTTP server first). */
  close(): Promise<void>;
}

/** The mount point of gengate's API inside this app. */
export const GENGATE_MOUNT = '/ai';

/** An ordinary Express app with its own users and sign-in, and gengate mounted at /ai. */
export async function createApp(o: AppOptions): Promise<App> {
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: 20 });
  const sessions = new SessionStore(pool, o.publicUrl().startsWith('https:'));
  let host: GengateHost | null = null;
  host = await createGengateHost({
    database: { pool }, // one pool for the app and gengate
    adapters: o.adapters ?? [createSandboxAdapter()],
    ...(o.logger ? { logger: o.logger } : {}),
    filesDir: o.filesDir,
    publicUrl: o.publicUrl,
    mountPath: GENGATE_MOUNT,
    settings: { shutdownGraceMs: o.shutdownGraceMs ?? 10_000 },
    authenticate: gengateUserSeam({ pool, sessions, host: () => host as GengateHost, signupCredits: o.signupCredits ?? 10 }),
  });
  const gengate = host;

  const app = express();
  app.disable('x-powered-by');
  app.get('/', (_req, res) => res.type('html').send(homePage(GENGATE_MOUNT)));
  app.use('/auth', signInRoutes(pool, sessions));
  app.use(GENGATE_MOUNT, gengate.router);

  return {
    app,
    pool,
    gengate,
    async start(opts = {}) {
      await migrateAppTables(pool);
      await gengate.migrate();
      if (opts.workers ?? true) await gengate.startWorkers();
      else await gengate.start();
    },
    async close() {
      await gengate.close();
      await pool.end();
    },
  };
}
