export * from './adapter-suite.js';
export * from './store-suite.js';
