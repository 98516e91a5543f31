import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../packages/host/src/server/embedded-postgres.js';
import { createMigratedTemplate, useMigratedTemplate } from '../packages/host/test/support/migrated-test-database.js';

/**
 * One PostgreSQL server for the whole test run: DATABASE_URL when it is set (the machine's server in CI),
 * else an embedded one in a temporary directory. Each test file creates its own database on it
 * (createTestDatabase from @gengate/testing/host), so files never see each other's rows; a migrated
 * template made here once lets files that only use the stores skip migrating theirs
 * (packages/host/test/support/migrated-test-database.ts).
 */
export default async function setup(): Promise<() => Promise<void>> {
  if (process.env['DATABASE_URL']) {
    process.env['GENGATE_TEST_PG_ADMIN_URL'] = process.env['DATABASE_URL'];
    process.env['GENGATE_TEST_PG_KIND'] = 'external';
    // The host under test must not pick it up implicitly: tests pass their own database url.
    delete process.env['DATABASE_URL'];
    const template = await createMigratedTemplate(process.env['GENGATE_TEST_PG_ADMIN_URL']);
    useMigratedTemplate(template.name);
    return () => template.drop();
  }
  const dir = mkdtempSync(join(tmpdir(), 'gengate-test-pg-'));
  chmodSync(dir, 0o755); // reachable by the postgres user when the tests run as root
  const started = Date.now();
  const dataDir = join(dir, 'data');
  // vitest runs several files at once (see maxWorkers in vitest.config.ts), and a file's spawned API and
  // worker processes hold up to 30 connections each: PostgreSQL's default 100 would run out. The setting
  // takes a restart (about a second).
  const first = await startEmbeddedPostgres({ dataDir });
  const admin = new pg.Client({ connectionString: first.url });
  await admin.connect();
  try {
    await admin.query('alter system set max_connections = 400');
  } finally {
    await admin.end();
  }
  await first.stop();
  const server = await startEmbeddedPostgres({ dataDir });
  process.env['GENGATE_TEST_PG_ADMIN_URL'] = server.url;
  process.env['GENGATE_TEST_PG_KIND'] = 'embedded';
  // Migrated once here; files that use the stores copy it (createMigratedTestDatabase).
  useMigratedTemplate((await createMigratedTemplate(server.url)).name);
  process.stdout.write(`embedded PostgreSQL for tests ready in ${Date.now() - started} ms\n`);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
