import { createTestDatabase } from '@gengate/testing/host';
import { describeDashboardStoresConformance } from '../../testing/src/conformance/index.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { PgAccountDirectory } from '../src/postgres/pg-account-directory.js';
import { PgSessionStore } from '../src/postgres/pg-session-store.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { openPool } from './support/open-pool.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';

describeDashboardStoresConformance('PostgreSQL', async () => {
  const db = await createTestDatabase();
  const { pool, close } = openPool(db.url, 10);
  await runMigrations(pool, DEFAULT_SCHEMA);
  const { stores } = createPgStores(pool, null, { schema: DEFAULT_SCHEMA });
  return {
    scope: stores,
    sessions: new PgSessionStore(pool, DEFAULT_SCHEMA),
    directory: new PgAccountDirectory(pool, DEFAULT_SCHEMA),
    async cleanup() {
      await close();
      await db.drop();
    },
  };
});
