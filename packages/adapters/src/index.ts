export * from './sandbox/index.js';
export * from './ai-sdk/index.js';
export * from './openai/index.js';
export * from './anthropic/index.js';
export * from './google/index.js';
export * from './openai-compatible/index.js';
export * from './docs/index.js';
