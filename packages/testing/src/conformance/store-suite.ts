import { afterAll, beforeAll, describe } from 'vitest';
import { describeUsersContract } from './store-contract-users.js';
import { describeKeysContract } from './store-contract-keys.js';
import { describeTasksContract } from './store-contract-tasks.js';
import { describeLedgerContract } from './store-contract-ledger.js';
import { describeAlertsContract } from './store-contract-alerts.js';
import { describeUnitOfWorkContract } from './store-contract-unit-of-work.js';
import { describeCapsContract } from './store-contract-caps.js';
import { describeOrganizationsContract } from './store-contract-organizations.js';
import { createStoreFixtures, type StoreConformanceHarness, type StoreConformanceOptions } from './store-fixtures.js';

export type { StoreConformanceHarness, StoreConformanceOptions, StoreConformanceSkip } from './store-fixtures.js';

/**
 * The store conformance suite (in the style of better-auth's adapter tests): every method of the
 * store ports (packages/core/src/ports/stores.ts) is checked against its documented contract, so a
 * new storage back end can prove it behaves like the reference ones.
 *
 * `factory` is called once for the suite (beforeAll) and `cleanup` once at its end; every test
 * creates its own users with random ids and e-mails, so tests never depend on each other's rows.
 */
export function describeStoreConformance(
  name: string,
  factory: () => Promise<StoreConformanceHarness>,
  options: StoreConformanceOptions = {},
): void {
  const skip = new Set(options.skip ?? []);

  describe(`store conformance: ${name}`, () => {
    let harness: StoreConformanceHarness | null = null;

    beforeAll(async () => {
      harness = await factory();
    });

    afterAll(async () => {
      await harness?.cleanup();
      harness = null;
    });

    const f = createStoreFixtures(() => {
      if (!harness) throw new Error('the store factory did not run');
      return harness;
    }, skip);
    describeUsersContract(f);
    describeKeysContract(f);
    describeTasksContract(f);
    describeLedgerContract(f);
    describeAlertsContract(f);
    describeUnitOfWorkContract(f);
    describeCapsContract(f);
    describeOrganizationsContract(f);
  });
}
