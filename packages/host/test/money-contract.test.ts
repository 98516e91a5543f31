import { describeMoneyContract, openMemoryMoneyImplementation } from '@gengate/testing/host';
import { openPgMoneyHarness } from './support/pg-money-implementation.js';

// The rules that move money, by example: core's TypeScript over the memory stores, and the PostgreSQL
// implementation (PgTaskIntake / PgTaskCompletion and the SQL functions they call).
describeMoneyContract('memory', async () => ({ open: openMemoryMoneyImplementation }));
describeMoneyContract('PostgreSQL', () => openPgMoneyHarness());
