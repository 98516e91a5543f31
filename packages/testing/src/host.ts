/**
 * @gengate/testing/host: what a HOST implementer needs (a store, a server, an embedding): the HTTP API
 * conformance suite (through @gengate/client), the store contract suites, the money contract (intake
 * and completion, with the driver a differential test uses), a throwaway PostgreSQL database
 * (pg), an SMTP capture (smtp-server) and a fake Stripe. Its packages are optional peer dependencies of
 * @gengate/testing: install the ones you use (`npm install -D pg smtp-server @gengate/client`).
 * An adapter author needs only `@gengate/testing` (the adapter conformance suite and the upstream fakes).
 */
export { createTestDatabase } from './postgres/test-database.js';
export type { TestDatabase, TestDatabaseOptions } from './postgres/test-database.js';
export { startFakeStripe } from './fakes/fake-stripe.js';
export type { FakeCheckoutSession, FakeStripe } from './fakes/fake-stripe.js';
export { startSmtpCapture } from './fakes/smtp-capture.js';
export type { CapturedMail, SmtpCapture } from './fakes/smtp-capture.js';
export { describeDashboardStoresConformance, describeHttpApiConformance, describeStoreConformance } from './conformance/index.js';
export {
  CONTRACT_MODEL,
  contractAdapter,
  describeMoneyContract,
  describeUsageContract,
  ledgerViolations,
  MONEY_CONTRACT_SCHEDULING,
  MoneyClock,
  MoneyDriver,
  normaliseMoneyState,
  openMemoryMoneyImplementation,
  quoteOf,
} from './conformance/index.js';
export type {
  MoneyCommand,
  MoneyContractHarness,
  MoneyImplementation,
  MoneyImplementationConfig,
  MoneyOutcome,
  MoneyState,
  RawMoneyState,
  UserMoneyState,
} from './conformance/index.js';
export type {
  DashboardStoresHarness,
  HttpApiConformanceOptions,
  StoreConformanceHarness,
  StoreConformanceOptions,
  StoreConformanceSkip,
} from './conformance/index.js';
