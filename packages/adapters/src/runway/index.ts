export * from './runway-adapter.js';
export * from './runway-models.js';
export * from './runway-mapping.js';
