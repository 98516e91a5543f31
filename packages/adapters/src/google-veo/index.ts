export { createVeoAdapter, VeoAdapter } from './veo-adapter.js';
export type { VeoAdapterOptions } from './veo-adapter.js';
export { VEO_MODELS } from './veo-models.js';
export type { VeoModel } from './veo-models.js';
export { classifyVeoFailure, veoStartOptions } from './veo-mapping.js';
export type { VeoStartOptions } from './veo-mapping.js';
