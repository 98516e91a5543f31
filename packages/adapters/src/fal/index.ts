export { createFalAdapter, FAL_DEFAULT_QUEUE_URL, FAL_DEFAULT_RUN_URL, FAL_KEY_SETTING, FalAdapter } from './fal-adapter.js';
export type { FalAdapterOptions } from './fal-adapter.js';
export { FAL_MODELS } from './fal-models.js';
export type { FalImageEndpoint, FalModel, FalVideoEndpoints } from './fal-models.js';
export { classifyFal, falAppId, falVideoSubmission } from './fal-mapping.js';
export type { FalVideoSubmission } from './fal-mapping.js';
export { FalWebhookVerifier, FAL_JWKS_URL, readFalWebhook } from './fal-webhook.js';
