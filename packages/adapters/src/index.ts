export * from './sandbox/index.js';
export * from './fal/index.js';
