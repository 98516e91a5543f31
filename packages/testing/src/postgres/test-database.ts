import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env['GENGATE_TEST_PG_ADMIN_URL'];
  if (!url) throw new Error('GENGATE_TEST_PG_ADMIN_URL is not set: run the tests through the repository vitest config (its global setup starts PostgreSQL)');
  return url;
}

/** How createTestDatabase makes the database. */
export interface TestDatabaseOptions {
  /**
   * A database on the same server to copy (`create database ... template`), for example one migrated once
   * per test run: copying it is far cheaper than migrating each new database. Nothing may be connected to it.
   */
  readonly template?: string;
}

/** A fresh, uniquely named database on the test server (or on the given server); drop() removes it. */
export async function createTestDatabase(onServer?: string, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const admin = onServer ?? adminUrl();
  const name = `gg_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(options.template === undefined ? `create database ${name}` : `create database ${name} template ${pg.escapeIdentifier(options.template)}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        // Pools resolve end() before their sockets close: wait (bounded) for their backends to go, so
        // they are not terminated under a client that would report it as an error; then force the rest.
        const until = Date.now() + 3_000;
        for (;;) {
          const { rows } = await c.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
          if ((rows[0]?.n ?? 0) === 0 || Date.now() > until) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
        await c.query(`drop database if exists ${name}`);
      } finally {
        await c.end();
      }
    },
  };
}
