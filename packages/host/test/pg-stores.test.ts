import { randomUUID } from 'node:crypto';
import type { OrganizationStore, TransactionScope, UnitOfWork } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeStoreConformance } from '../../testing/src/conformance/index.js';
import { createBoss } from '../src/postgres/boss-queues.js';
import { openPool } from './support/open-pool.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';

const logger = pino({ level: 'silent' });

interface PgHarness {
  readonly db: TestDatabase;
  readonly pool: pg.Pool;
  readonly boss: PgBoss;
  readonly scope: TransactionScope;
  readonly uow: UnitOfWork;
  readonly organizations: OrganizationStore;
  cleanup(): Promise<void>;
}

/** A fresh database with the schema, pg-boss and the PostgreSQL stores over it. */
async function openPgStores(): Promise<PgHarness> {
  const db = await createTestDatabase();
  const { pool, close } = openPool(db.url, 10);
  await runMigrations(pool, DEFAULT_SCHEMA);
  const boss = await createBoss({ connectionString: db.url, logger });
  const { stores, unitOfWork, organizations } = createPgStores(pool, boss, { schema: DEFAULT_SCHEMA });
  return {
    db,
    pool,
    boss,
    scope: stores,
    uow: unitOfWork,
    organizations,
    async cleanup() {
      await boss.stop({ graceful: false, timeout: 1_000 });
      await close();
      await db.drop();
    },
  };
}

describeStoreConformance('PostgreSQL stores', openPgStores);

describe('PostgreSQL ledger under concurrency', () => {
  let h: PgHarness;

  beforeAll(async () => {
    h = await openPgStores();
  });

  afterAll(async () => {
    await h?.cleanup();
  });

  it('100 concurrent hold+insert units of work on a balance covering 25 holds: exactly 25 succeed', async () => {
    const quote = 3_000_000;
    const userId = randomUUID();
    await h.uow.run(async (tx) => {
      await tx.users.insert({ id: userId, email: `race-${userId}@example.com` });
      await tx.ledger.openAccount(userId);
      await tx.ledger.record({ userId, creditsMicro: 25 * quote, amountMicroUsd: 0, paymentMethod: 'grant', status: 'completed', description: 'race' });
    });

    const taskIds: string[] = Array.from({ length: 100 }, () => randomUUID());
    const results = await Promise.allSettled(
      taskIds.map((taskId) =>
        h.uow.run(async (tx) => {
          await tx.ledger.hold(userId, taskId, quote);
          await tx.tasks.insert({
            id: taskId,
            userId,
            apiKeyId: null,
            modelId: 'race.image',
            modality: 'image',
            request: { prompt: 'race' },
            callbackUrl: null,
            quotedMicro: quote,
            quotedCostMicro: quote,
            admitted: true,
          });
          return taskId;
        }),
      ),
    );

    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(25);
    expect(refused).toHaveLength(75);
    for (const r of refused) expect(r.reason).toMatchObject({ name: 'GatewayError', type: 'insufficient_credits' });

    const balance = await h.scope.ledger.getBalance(userId);
    expect(balance).toEqual({ balanceMicro: 25 * quote, heldMicro: 25 * quote });

    const stored = await Promise.all(taskIds.map((id) => h.scope.tasks.findById(id)));
    const okIds = new Set(ok.map((r) => r.value));
    stored.forEach((task, i) => {
      const id = taskIds[i] ?? '';
      if (okIds.has(id)) expect(task?.status).toBe('waiting');
      else expect(task).toBeNull();
    });

    const { rows } = await h.pool.query<{ n: number; held: string }>(
      `select count(*)::int as n, coalesce(sum(amount_micro), 0)::text as held from gengate.holds where user_id = $1 and state = 'held'`,
      [userId],
    );
    expect(rows[0]).toEqual({ n: 25, held: String(25 * quote) });

    const txs = await h.scope.ledger.listTransactions(userId, 1, 100);
    const completed = txs.items.filter((t) => t.status === 'completed').reduce((s, t) => s + t.creditsMicro, 0);
    expect(balance.balanceMicro).toBe(completed);
  });
});

describe('PostgreSQL migrations', () => {
  const dbs: TestDatabase[] = [];
  const pools: { pool: pg.Pool; close(): Promise<void> }[] = [];

  async function freshPool(db: TestDatabase): Promise<pg.Pool> {
    const opened = openPool(db.url, 3);
    pools.push(opened);
    return opened.pool;
  }

  afterAll(async () => {
    for (const p of pools) await p.close();
    for (const d of dbs) await d.drop();
  });

  it('are idempotent: a second run applies nothing and keeps the data', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const pool = await freshPool(db);
    const first = await runMigrations(pool, DEFAULT_SCHEMA);
    expect(first.applied.length).toBeGreaterThan(0);
    const id = randomUUID();
    await pool.query('insert into gengate.users (id, email) values ($1, $2)', [id, 'kept@example.com']);

    const second = await runMigrations(pool, DEFAULT_SCHEMA);
    expect(second.applied).toEqual([]);
    const { rows } = await pool.query<{ n: number }>('select count(*)::int as n from gengate.gengate_migrations');
    expect(rows[0]?.n).toBe(first.applied.length);
    expect((await pool.query('select id from gengate.users where id = $1', [id])).rowCount).toBe(1);
  });

  it('two concurrent runs on a fresh database both succeed and apply each migration once', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const [a, b] = await Promise.all([runMigrations(await freshPool(db), DEFAULT_SCHEMA), runMigrations(await freshPool(db), DEFAULT_SCHEMA)]);
    const all = [...a.applied, ...b.applied].sort((x, y) => x - y);
    expect(all.length).toBeGreaterThan(0);
    expect(new Set(all).size).toBe(all.length);
    expect(a.applied.length === 0 || b.applied.length === 0).toBe(true);
    const { rows } = await (pools[pools.length - 1]?.pool as pg.Pool).query<{ version: number }>('select version from gengate.gengate_migrations order by version');
    expect(rows.map((r) => r.version)).toEqual(all);
  });
});
