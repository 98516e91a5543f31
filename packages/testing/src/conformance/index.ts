export * from './adapter-suite.js';
export * from './store-suite.js';
export * from './http-api-suite.js';
export * from './store-contract-sessions.js';
