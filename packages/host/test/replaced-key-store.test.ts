import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, MemoryBlobStore, UnitOfWorkTaskCompletion, UnitOfWorkTaskIntake, type ApiKeyPatch, type ApiKeyRecord, type KeyStore, type NewApiKey } from '@gengate/core/internal';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGenerationWorker, type GenerationWorker } from '../src/jobs/generation-worker.js';
import { createBoss } from '../src/postgres/boss-queues.js';
import { ManualPaymentProcessor } from '../src/payments/manual-processor.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { PgTaskCompletion } from '../src/postgres/pg-task-completion.js';
import { PgTaskIntake } from '../src/postgres/pg-task-intake.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { PgUserStore, userSql } from '../src/postgres/pg-user-store.js';
import type { Queryable } from '../src/postgres/queryable.js';
import { waitFor } from './support/spawn-server.js';

const logger = pino({ level: 'silent' });

interface CredentialRow {
  id: string;
  owner: string;
  label: string;
  digest: string;
  revoked: boolean;
  created: Date;
}

/** An app's own credentials table, in its own schema, behind gengate's KeyStore port. */
class AppCredentialStore implements KeyStore {
  constructor(private readonly db: Queryable) {}

  private static toKey(r: CredentialRow): ApiKeyRecord {
    return {
      id: r.id,
      userId: r.owner,
      name: r.label,
      secretHash: r.digest,
      mask: 'app_...',
      limits: { perMinute: null, perHour: null, perDay: null },
      ipWhitelist: [],
      createdAt: r.created,
      lastUsedAt: null,
      revokedAt: r.revoked ? r.created : null,
    };
  }

  private async rows(sql: string, values: unknown[]): Promise<ApiKeyRecord[]> {
    return (await this.db.query<CredentialRow>(sql, values)).rows.map(AppCredentialStore.toKey);
  }

  async insert(k: NewApiKey): Promise<ApiKeyRecord> {
    const [key] = await this.rows('insert into app.credentials (id, owner, label, digest) values ($1, $2, $3, $4) returning *', [k.id, k.userId, k.name, k.secretHash]);
    if (!key) throw new Error('not inserted');
    return key;
  }
  async findActiveByHash(hash: string): Promise<ApiKeyRecord | null> {
    return (await this.rows('select * from app.credentials where digest = $1 and not revoked', [hash]))[0] ?? null;
  }
  async findActiveForUser(id: string, userId: string): Promise<ApiKeyRecord | null> {
    return (await this.rows('select * from app.credentials where id = $1 and owner = $2 and not revoked', [id, userId]))[0] ?? null;
  }
  listActiveForUser(userId: string): Promise<readonly ApiKeyRecord[]> {
    return this.rows('select * from app.credentials where owner = $1 and not revoked order by created desc', [userId]);
  }
  async countActiveForUser(userId: string): Promise<number> {
    return (await this.listActiveForUser(userId)).length;
  }
  async update(id: string, userId: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null> {
    if (patch.name !== undefined) await this.db.query('update app.credentials set label = $3 where id = $1 and owner = $2', [id, userId, patch.name]);
    return this.findActiveForUser(id, userId);
  }
  async revoke(id: string, userId: string): Promise<boolean> {
    return ((await this.db.query('update app.credentials set revoked = true where id = $1 and owner = $2 and not revoked', [id, userId])).rowCount ?? 0) > 0;
  }
  async touchLastUsed(): Promise<void> {}
  async lockActive(id: string): Promise<boolean> {
    return (await this.db.query('select 1 from app.credentials where id = $1 and not revoked for share', [id])).rows.length > 0;
  }
}

/**
 * createPgStores with the KeyStore replaced: keys live in the app's own table, the replacement runs on
 * the unit of work's transaction (a factory of the connection), and a task submitted with such a key runs
 * to success. The pool's search_path names only the app's schema: gengate qualifies every name itself.
 */
describe('a replaced KeyStore (the app keeps the keys)', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let boss: PgBoss;
  let worker: GenerationWorker;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 10, options: '-c search_path=app' });
    await pool.query(`create schema app;
      create table app.credentials (id uuid primary key, owner uuid not null, label text not null, digest text not null unique,
        revoked boolean not null default false, created timestamptz not null default clock_timestamp())`);
    await runMigrations(pool, 'gengate');
    boss = await createBoss({ connectionString: db.url, logger });
  });

  afterAll(async () => {
    await worker?.stop();
    await boss?.stop({ graceful: false });
    await pool?.end();
    await db?.drop();
  });

  it('keeps keys in the app table, joins the unit of work, and a task submitted with an app key succeeds', async () => {
    const pgStores = createPgStores(pool, boss, { schema: 'gengate', replace: { keys: (conn) => new AppCredentialStore(conn) } });
    // With a store replaced, the money rules run over the unit of work (so over the replacement), not in gengate's SQL functions.
    expect(pgStores.taskIntake).toBeInstanceOf(UnitOfWorkTaskIntake);
    expect(pgStores.taskCompletion).toBeInstanceOf(UnitOfWorkTaskCompletion);
    const gengate = createGengate({
      adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 5 } })],
      ...pgStores,
      blobStore: new MemoryBlobStore(),
      resultUrls: { urlFor: (k) => k },
      paymentProcessor: new ManualPaymentProcessor(),
    });
    worker = await startGenerationWorker(boss, gengate, { concurrency: 2, logger });

    const { api_key: key, user_id: userId } = await gengate.admin.createUser({ email: 'app-user@example.com', credits: 100 });
    const count = async (sql: string) => (await pool.query<{ n: number }>(sql)).rows[0]?.n;
    expect(await count(`select count(*)::int as n from app.credentials where owner = '${userId}'`)).toBe(1);
    expect(await count('select count(*)::int as n from gengate.api_keys')).toBe(0);

    const auth = await gengate.authenticate.execute(key, '127.0.0.1');
    const { task_id: taskId } = await gengate.submitRun.execute(auth, 'sandbox.echo-chat', { prompt: 'with an app key' });
    const task = await waitFor(async () => {
      const t = await pgStores.stores.tasks.findById(taskId);
      return t && (t.status === 'success' || t.status === 'fail') ? t : null;
    }, { timeoutMs: 20_000, intervalMs: 50, what: 'the task to end' });
    expect(task).toMatchObject({ status: 'success', apiKeyId: auth.apiKeyId });
    expect((await pgStores.stores.ledger.getBalance(userId)).balanceMicro).toBeLessThan(100_000_000);

    // The replacement writes on the transaction's connection: rolled back with it.
    await expect(
      pgStores.unitOfWork.run(async (tx) => {
        await tx.keys.insert({ id: crypto.randomUUID(), userId, name: 'doomed', secretHash: 'doomed-digest', mask: 'x', limits: { perMinute: null, perHour: null, perDay: null }, ipWhitelist: [] });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await count(`select count(*)::int as n from app.credentials where digest = 'doomed-digest'`)).toBe(0);

    // Revoking through gengate revokes in the app's table; the key no longer authenticates.
    await gengate.keys.revoke(auth, auth.apiKeyId);
    await expect(gengate.authenticate.execute(key, '127.0.0.1')).rejects.toMatchObject({ type: 'authentication_failed' });
  });

  it("uses a replacement given as an instance as it is, in every scope; only gengate's own stores take the SQL functions", async () => {
    const instance = new AppCredentialStore(pool);
    const s = createPgStores(pool, boss, { schema: 'gengate', replace: { keys: instance } });
    expect(s.stores.keys).toBe(instance);
    expect(await s.unitOfWork.run(async (tx) => tx.keys)).toBe(instance);
    // Any replacement, even of a store the money rules never read: createPgStores does not know which
    // tables the SQL functions touch, so the unit-of-work implementations of the same ports run.
    const users = createPgStores(pool, boss, { schema: 'gengate', replace: { users: (db) => new PgUserStore(db, userSql('gengate')) } });
    expect(users.taskIntake).toBeInstanceOf(UnitOfWorkTaskIntake);
    const own = createPgStores(pool, boss, { schema: 'gengate' });
    expect(own.taskIntake).toBeInstanceOf(PgTaskIntake);
    expect(own.taskCompletion).toBeInstanceOf(PgTaskCompletion);
  });
});
