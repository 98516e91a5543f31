export * from './fal-adapter.js';
export * from './fal-models.js';
export * from './fal-mapping.js';
export { FalWebhookVerifier, FAL_JWKS_URL, readFalWebhook } from './fal-webhook.js';
