import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { createBoss } from '../../src/postgres/boss-queues.js';
import { runMigrations } from '../../src/postgres/migrate.js';
import { DEFAULT_SCHEMA } from '../../src/postgres/schema.js';

/** Set by the global setup (test/vitest-global-setup.ts): the migrated database new ones are copied from. */
const TEMPLATE_VARIABLE = 'GENGATE_TEST_PG_TEMPLATE';

/**
 * Makes, once per test run, a database with every migration applied in gengate's default schema and
 * pg-boss's schema installed, closed to connections so that `create database ... template` can copy it
 * (about 0.5 s under load, where migrating a new database and starting pg-boss on it took 3.2 s).
 * Returns its name and how to drop it.
 */
export async function createMigratedTemplate(adminUrl: string): Promise<{ readonly name: string; drop(): Promise<void> }> {
  const name = `gg_template_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
    try {
      await runMigrations(pool, DEFAULT_SCHEMA);
      const boss = await createBoss({ connectionString: url.toString(), logger: pino({ level: 'silent' }) });
      await boss.stop({ graceful: false });
    } finally {
      await pool.end();
    }
    await admin.query(`alter database ${name} with allow_connections false`);
    // Closed pools resolve before their backends exit; a copy fails while any is still there.
    const until = Date.now() + 10_000;
    for (;;) {
      const { rows } = await admin.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
      if ((rows[0]?.n ?? 0) === 0) break;
      if (Date.now() > until) throw new Error(`the template database ${name} still has connections`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await admin.end();
  }
  return {
    name,
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name}`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Publishes the template's name to the test files (their processes inherit the global setup's environment). */
export function useMigratedTemplate(name: string): void {
  process.env[TEMPLATE_VARIABLE] = name;
}

/**
 * A fresh database that is already migrated (a copy of the run's template), for tests that use the stores
 * rather than test migrating: runMigrations on it then applies nothing, and pg-boss finds its schema. Without
 * a template (a runner other than the repository's vitest config) it is an empty database, which the callers
 * migrate themselves.
 */
export function createMigratedTestDatabase(): Promise<TestDatabase> {
  const template = process.env[TEMPLATE_VARIABLE];
  return template ? createTestDatabase(undefined, { template }) : createTestDatabase();
}
