import { createMemoryStores } from '@gengate/core';
import { describeStoreConformance } from './store-suite.js';

// The memory stores serialize units of work but do not roll a failed one back, hence the skip.
describeStoreConformance(
  'memory stores',
  async () => {
    const { scope, uow } = createMemoryStores();
    return { scope, uow, cleanup: async () => undefined };
  },
  { skip: ['rollback'] },
);
