export * from './veo-adapter.js';
export * from './veo-models.js';
export * from './veo-mapping.js';
