import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, MemoryBlobStore, type Authenticated, type Gengate, type GengateCoreConfig } from '@gengate/core';
import type { TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { createBoss } from '../../src/postgres/boss-queues.js';
import { ManualPaymentProcessor } from '../../src/payments/manual-processor.js';
import { runMigrations } from '../../src/postgres/migrate.js';
import { createPgStores } from '../../src/postgres/pg-unit-of-work.js';
import { DEFAULT_SCHEMA } from '../../src/postgres/schema.js';
import { createMigratedTestDatabase } from './migrated-test-database.js';

export interface PgGengate {
  readonly db: TestDatabase;
  readonly pool: pg.Pool;
  readonly boss: PgBoss;
  readonly gengate: Gengate;
  /** A new user with these credits, authenticated. */
  user(credits: number): Promise<Authenticated>;
  close(): Promise<void>;
}

/**
 * The use cases on a fresh PostgreSQL database with pg-boss and the fast sandbox (no worker started).
 * The pool does not pipeline unless asked (the host's does): both ways of sending a submission are tested.
 */
export async function openPgGengate(options: { pipeline?: boolean; scheduling?: GengateCoreConfig['scheduling'] } = {}): Promise<PgGengate> {
  const db = await createMigratedTestDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 20, pipeline: options.pipeline ?? false });
  await runMigrations(pool, DEFAULT_SCHEMA);
  const boss = await createBoss({ connectionString: db.url, logger: pino({ level: 'silent' }) });
  const { stores, unitOfWork, taskIntake, taskCompletion } = createPgStores(pool, boss, { schema: DEFAULT_SCHEMA });
  const gengate = createGengate({
    adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 30 }, statusPollIntervalMs: 10 })],
    stores,
    unitOfWork,
    taskIntake,
    taskCompletion,
    blobStore: new MemoryBlobStore(),
    resultUrls: { urlFor: (k) => `http://gengate.test/api/v1/files/${k}` },
    paymentProcessor: new ManualPaymentProcessor(),
    ...(options.scheduling ? { scheduling: options.scheduling } : {}),
  });
  return {
    db,
    pool,
    boss,
    gengate,
    async user(credits) {
      const { api_key } = await gengate.admin.createUser({ email: `u${Math.random().toString(36).slice(2)}@example.com`, credits });
      return gengate.authenticate.execute(api_key, '127.0.0.1');
    },
    async close() {
      await boss.stop({ graceful: false });
      await pool.end();
      await db.drop();
    },
  };
}
