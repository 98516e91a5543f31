import { createMemoryStores } from '@gengate/core';
import { describeStoreConformance } from './store-suite.js';

// The whole suite, as for PostgreSQL: the memory unit of work is copy-on-write and rolls a failed one back.
describeStoreConformance(
  'memory stores',
  async () => {
    const { scope, uow, organizations } = createMemoryStores();
    return { scope, uow, organizations, cleanup: async () => undefined };
  },
);
