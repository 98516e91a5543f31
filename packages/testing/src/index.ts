export * from './conformance/adapter-suite.js';
export * from './postgres/test-database.js';
export * from './fakes/fake-stripe.js';
export * from './fakes/smtp-capture.js';
export * from './conformance/index.js';
export * from './fakes/memory-gengate.js';
