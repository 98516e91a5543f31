import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, MemoryBlobStore, type Gengate, type PaymentProcessor } from '@gengate/core';
import type { TestDatabase } from '@gengate/testing/host';
import express from 'express';
import { pino, type Logger } from 'pino';
import type Stripe from 'stripe';
import type { PgBoss } from 'pg-boss';
import { CallbackRepository } from '../../src/callbacks/callback-repository.js';
import { createBoss } from '../../src/postgres/boss-queues.js';
import { createGengateRouter } from '../../src/http/create-router.js';
import { ManualPaymentProcessor } from '../../src/payments/manual-processor.js';
import { runMigrations } from '../../src/postgres/migrate.js';
import { createPgStores } from '../../src/postgres/pg-unit-of-work.js';
import { openPool } from './open-pool.js';
import { DEFAULT_SCHEMA } from '../../src/postgres/schema.js';
import { createMigratedTestDatabase } from './migrated-test-database.js';

export interface PgHttpApp {
  readonly db: TestDatabase;
  readonly url: string;
  readonly gengate: Gengate;
  readonly pool: import('pg').Pool;
  /** A new user with these credits; returns its first API key. */
  user(credits?: number): Promise<{ userId: string; key: string }>;
  close(): Promise<void>;
}

/** The router on PostgreSQL stores (no job queue), listening on a free port: HTTP against the real database. */
export async function openPgHttpApp(
  opts: {
    paymentProcessor?: PaymentProcessor;
    logger?: Logger;
    stripeWebhook?: { stripe: Stripe; webhookSecret: string };
    /** Start pg-boss so run requests can enqueue (no worker runs them). */
    withQueue?: boolean;
  } = {},
): Promise<PgHttpApp> {
  const db = await createMigratedTestDatabase();
  const { pool, close } = openPool(db.url, 40);
  await runMigrations(pool, DEFAULT_SCHEMA);
  const boss: PgBoss | null = opts.withQueue ? await createBoss({ connectionString: db.url, logger: pino({ level: 'silent' }) }) : null;
  const { stores, unitOfWork, taskIntake, taskCompletion, usageReader, organizations } = createPgStores(pool, boss, { schema: DEFAULT_SCHEMA });
  const gengate = createGengate({
    adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 30 } })],
    stores,
    unitOfWork,
    taskIntake,
    taskCompletion,
    blobStore: new MemoryBlobStore(),
    resultUrls: { urlFor: (k) => `http://gengate.test/api/v1/files/${k}` },
    paymentProcessor: opts.paymentProcessor ?? new ManualPaymentProcessor(),
    ...(usageReader ? { usageReader } : {}),
    organizations,
  });
  const app = express().use(
    '/api/v1',
    createGengateRouter({
      gengate,
      blobStore: new MemoryBlobStore(),
      logger: opts.logger ?? pino({ level: 'silent' }),
      callbacks: new CallbackRepository(pool, DEFAULT_SCHEMA),
      ...(opts.stripeWebhook ? { stripeWebhook: opts.stripeWebhook } : {}),
    }),
  );
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  let n = 0;
  return {
    db,
    pool,
    gengate,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    async user(credits = 100) {
      const u = await gengate.admin.createUser({ email: `pgapp${++n}-${Math.random().toString(36).slice(2)}@example.com`, credits });
      return { userId: u.user_id, key: u.api_key };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await boss?.stop({ graceful: false });
      await close();
      await db.drop();
    },
  };
}
