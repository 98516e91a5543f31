export { describeAdapterConformance, runAdapterCall } from './adapter-suite.js';
export type { AdapterConformanceOptions, AdapterSuiteSection } from './adapter-suite.js';
export { describeStoreConformance } from './store-suite.js';
export type { StoreConformanceHarness, StoreConformanceOptions, StoreConformanceSkip } from './store-suite.js';
export { describeHttpApiConformance } from './http-api-suite.js';
export type { HttpApiConformanceOptions } from './http-api-suite.js';
export { describeDashboardStoresConformance } from './store-contract-sessions.js';
export type { DashboardStoresHarness } from './store-contract-sessions.js';
