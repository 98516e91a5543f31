import type { IConfiguration } from 'dependency-cruiser';

/** The import rules of .dependency-cruiser.mjs, typed for test/import-graph.test.ts. */
declare const config: IConfiguration;
export default config;
