export * from './replicate-adapter.js';
export * from './replicate-models.js';
export * from './replicate-mapping.js';
export { verifyReplicateWebhook, readReplicateWebhook } from './replicate-webhook.js';
