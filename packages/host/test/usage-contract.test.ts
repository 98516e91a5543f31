import { describeUsageContract, openMemoryMoneyImplementation } from '@gengate/testing/host';
import { openPgMoneyHarness } from './support/pg-money-implementation.js';

// GET /usage's figures after settlement, on both implementations: memory (computed from its rows) and
// PostgreSQL (the rollups migration 023's trigger keeps at each settlement, read by PgUsageReader).
describeUsageContract('memory', async () => ({ open: openMemoryMoneyImplementation }));
describeUsageContract('PostgreSQL', () => openPgMoneyHarness());
