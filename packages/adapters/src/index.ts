export * from './sandbox/index.js';
