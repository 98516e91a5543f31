import { createMemoryStores, MemoryAccountDirectory, MemorySessionStore } from '@gengate/core/internal';
import { describeDashboardStoresConformance } from './store-contract-sessions.js';

describeDashboardStoresConformance('memory', async () => {
  const { db, scope } = createMemoryStores();
  return { scope, sessions: new MemorySessionStore(), directory: new MemoryAccountDirectory(db), cleanup: async () => undefined };
});
