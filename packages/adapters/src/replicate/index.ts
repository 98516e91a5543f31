export {
  createReplicateAdapter,
  REPLICATE_DEFAULT_BASE_URL,
  REPLICATE_TOKEN_SETTING,
  ReplicateAdapter,
} from './replicate-adapter.js';
export type { ReplicateAdapterOptions } from './replicate-adapter.js';
export { REPLICATE_MODELS } from './replicate-models.js';
export type { ReplicateModel } from './replicate-models.js';
export { classifyReplicateFailure, replicateVideoInput } from './replicate-mapping.js';
export type { ReplicateVideoInput } from './replicate-mapping.js';
export { verifyReplicateWebhook, readReplicateWebhook } from './replicate-webhook.js';
