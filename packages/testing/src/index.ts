export * from './conformance/adapter-suite.js';
export * from './postgres/test-database.js';
