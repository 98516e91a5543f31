export * from './upstream-http.js';
export * from './ai-sdk-errors.js';
export * from './progress.js';
export * from './media.js';
export * from './handle.js';
export * from './sdk-warnings.js';
