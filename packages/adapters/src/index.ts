export * from './sandbox/index.js';
export * from './fal/index.js';
export * from './replicate/index.js';
export * from './runway/index.js';
export * from './google-veo/index.js';
