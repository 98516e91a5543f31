import { createTestDatabase } from '@gengate/testing';
import { describeDashboardStoresConformance } from '../../testing/src/conformance/index.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { PgAccountDirectory } from '../src/postgres/pg-account-directory.js';
import { PgSessionStore } from '../src/postgres/pg-session-store.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { openPool } from './support/open-pool.js';

describeDashboardStoresConformance('PostgreSQL', async () => {
  const db = await createTestDatabase();
  const { pool, close } = openPool(db.url, 10);
  await runMigrations(pool);
  const { stores } = createPgStores(pool, null);
  return {
    scope: stores,
    sessions: new PgSessionStore(pool),
    directory: new PgAccountDirectory(pool),
    async cleanup() {
      await close();
      await db.drop();
    },
  };
});
