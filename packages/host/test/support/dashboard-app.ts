import { SandboxAdapter } from '@gengate/adapters';
import { createDashboardServices, createGengate, InProcessRouteHealth, MemoryBlobStore, type DashboardServices, type Gengate, type InvitationMail, type Mailer, type MailMessage } from '@gengate/core';
import express, { type Express } from 'express';
import type pg from 'pg';
import { pino, type Logger } from 'pino';
import request from 'supertest';
import { CallbackRepository } from '../../src/callbacks/callback-repository.js';
import { bossQueueInspector } from '../../src/dashboard/boss-queue-inspector.js';
import { createDashboard } from '../../src/dashboard/create-dashboard.js';
import { createGengateRouter } from '../../src/http/create-router.js';
import { createBoss } from '../../src/postgres/boss-queues.js';
import { pgSignInLinkQueue, startSignInMailWorker } from '../../src/jobs/sign-in-mail-worker.js';
import { ManualPaymentProcessor } from '../../src/payments/manual-processor.js';
import { runMigrations } from '../../src/postgres/migrate.js';
import { PgAccountDirectory } from '../../src/postgres/pg-account-directory.js';
import { PgSessionStore } from '../../src/postgres/pg-session-store.js';
import { createPgStores } from '../../src/postgres/pg-unit-of-work.js';
import { openPool } from './open-pool.js';
import { waitFor } from './spawn-server.js';
import { DEFAULT_SCHEMA } from '../../src/postgres/schema.js';
import { createMigratedTestDatabase } from './migrated-test-database.js';

export const ORIGIN = 'http://gengate.test';

export interface DashboardApp {
  readonly app: Express;
  readonly gengate: Gengate;
  readonly services: DashboardServices;
  readonly pool: pg.Pool;
  /** Mails the dashboard sent (sign-in links). */
  readonly mails: MailMessage[];
  /** Invitation mails (with their tokens) the organizations use case sent. */
  readonly invitationMails: readonly InvitationMail[];
  /** Moves the dashboard's clock forward. */
  advance(ms: number): void;
  /** Resolves once every sign-in mail job asked for so far has run (sent, skipped or failed for good). */
  settle(): Promise<void>;
  /** Stops the sign-in mail worker (queued link requests wait) until resumeMail(). */
  pauseMail(): Promise<void>;
  resumeMail(): Promise<void>;
  /** Waits for the first mail after index `before` (to `to`, when given): links are mailed by a job, after the request answered. */
  nextMail(before: number, to?: string): Promise<MailMessage>;
  /** Asks for a link and uses it in the same "browser": the session's cookie header and CSRF token. */
  signIn(email: string): Promise<{ cookie: string; csrf: string; userId: string }>;
  close(): Promise<void>;
}

export function linkToken(mail: MailMessage | undefined): string {
  const m = /#token=([A-Za-z0-9_-]+)/.exec(mail?.text ?? '');
  if (!m?.[1]) throw new Error(`no sign-in link in ${JSON.stringify(mail)}`);
  return m[1];
}

/** The /api/v1 router and the dashboard over a fresh PostgreSQL database, mounted as the standalone host mounts them. */
/** The cookies a response set, as one Cookie header (name=value; ...). */
export function cookiesOf(res: { headers: Record<string, unknown> }): string {
  const set = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  return set.map((c) => c.split(';')[0] ?? '').join('; ');
}

const SIGN_IN_QUEUE = 'gengate-sign-in-mail';

export async function openDashboardApp(options: { openSignup?: boolean; signupCredits?: number; mailer?: Mailer; logger?: Logger } = {}): Promise<DashboardApp> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const db = await createMigratedTestDatabase();
  const { pool, close } = openPool(db.url, 10);
  await runMigrations(pool, DEFAULT_SCHEMA);
  const boss = await createBoss({ connectionString: db.url, logger });
  const { stores, unitOfWork, taskIntake, taskCompletion, usageReader, organizations } = createPgStores(pool, boss, { schema: DEFAULT_SCHEMA });
  const invitationMails: InvitationMail[] = [];
  const blobStore = new MemoryBlobStore();
  const gengate = createGengate({
    adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 30 }, statusPollIntervalMs: 10 })],
    stores,
    unitOfWork,
    taskIntake,
    taskCompletion,
    blobStore,
    resultUrls: { urlFor: (k) => `${ORIGIN}/api/v1/files/${k}` },
    paymentProcessor: new ManualPaymentProcessor(),
    ...(usageReader ? { usageReader } : {}),
    routeHealth: new InProcessRouteHealth(),
    organizations,
    invitationMailer: { send: async (mail) => void invitationMails.push(mail) },
  });
  const mails: MailMessage[] = [];
  let offsetMs = 0;
  const services = createDashboardServices({
    gengate,
    sessions: new PgSessionStore(pool, DEFAULT_SCHEMA),
    directory: new PgAccountDirectory(pool, DEFAULT_SCHEMA),
    mailer: {
      send: async (m) => {
        if (options.mailer) await options.mailer.send(m);
        mails.push(m);
      },
    },
    queues: bossQueueInspector(boss),
    linkQueue: pgSignInLinkQueue(boss),
    clock: { now: () => new Date(Date.now() + offsetMs) },
    options: {
      openSignup: options.openSignup ?? false,
      signupCredits: options.signupCredits ?? 0,
      linkUrl: (token) => `${ORIGIN}/dashboard/sign-in#token=${token}`,
    },
  });
  let mailWorker: { stop(): Promise<void> } | null = await startSignInMailWorker(boss, services.auth, logger);
  const dashboard = createDashboard({ services, logger, publicUrl: () => ORIGIN, paymentProcessor: 'manual' });
  const app = express();
  app.use('/api/v1', createGengateRouter({ gengate, blobStore, logger, callbacks: new CallbackRepository(pool, DEFAULT_SCHEMA), authenticate: dashboard.authenticate }));
  app.use('/dashboard', dashboard.router);
  const opened: DashboardApp = {
    app,
    gengate,
    services,
    pool,
    mails,
    invitationMails,
    advance(ms) {
      offsetMs += ms;
    },
    async pauseMail() {
      await mailWorker?.stop();
      mailWorker = null;
    },
    async resumeMail() {
      mailWorker ??= await startSignInMailWorker(boss, services.auth, logger);
    },
    async settle() {
      await waitFor(
        async () => {
          const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from pgboss.job where name = $1 and state in ('created', 'retry', 'active')`, [SIGN_IN_QUEUE]);
          return rows[0]?.n === 0 ? true : null;
        },
        { timeoutMs: 30_000, what: 'the sign-in mail jobs' },
      );
    },
    nextMail(before, to) {
      return waitFor(async () => mails.slice(before).find((m) => to === undefined || m.to.toLowerCase() === to.toLowerCase()), {
        timeoutMs: 15_000,
        intervalMs: 10,
        what: `a mail after #${before}${to ? ` to ${to}` : ''}`,
      });
    },
    async signIn(email) {
      const before = mails.length;
      const asked = await request(app).post('/dashboard/api/auth/link').set('Origin', ORIGIN).send({ email }).expect(200);
      const token = linkToken(await opened.nextMail(before, email));
      const res = await request(app).post('/dashboard/api/auth/verify').set('Origin', ORIGIN).set('Cookie', cookiesOf(asked)).send({ token }).expect(200);
      const cookie = cookiesOf(res).split('; ').find((c) => c.startsWith('gengate_session=')) ?? '';
      return { cookie, csrf: res.body.csrf_token as string, userId: res.body.user.id as string };
    },
    async close() {
      await mailWorker?.stop();
      await boss.stop({ graceful: false, timeout: 1_000 });
      await close();
      await db.drop();
    },
  };
  return opened;
}
