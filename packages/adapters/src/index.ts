export {
  createSandboxAdapter,
  DEFAULT_SANDBOX_LATENCY,
  SANDBOX_FAIL_MARKER,
  SANDBOX_MODELS,
  SandboxAdapter,
} from './sandbox/index.js';
export type { SandboxAdapterOptions, SandboxLatency } from './sandbox/index.js';
// The adapter kit (upstream calls, AI SDK error translation, redaction, warnings, polling, webhooks) is its own
// entry: @gengate/adapters/kit.
export {
  createOpenAIAdapter,
  gptImage15Params,
  gptImage2Params,
  OPENAI_DEFAULT_BASE_URL,
  OPENAI_KEY_SETTING,
  OPENAI_MODELS,
  OPENAI_PROVIDER_ID,
  OpenAIAdapter,
  openAIChatParams,
  openAIChatSettings,
  openAIImageSettings,
  refineOpenAIError,
} from './openai/index.js';
export {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_KEY_SETTING,
  ANTHROPIC_MODELS,
  ANTHROPIC_PROVIDER_ID,
  AnthropicAdapter,
  anthropicChatSettings,
  claudeEffortParams,
  claudeThinkingParams,
  createAnthropicAdapter,
  refineAnthropicError,
} from './anthropic/index.js';
export {
  createGoogleAdapter,
  GEMINI_IMAGE_SIZES,
  geminiChatParams,
  GOOGLE_DEFAULT_BASE_URL,
  GOOGLE_KEY_SETTING,
  GOOGLE_MODELS,
  GOOGLE_PROVIDER_ID,
  GoogleAdapter,
  googleBlockedReason,
  googleChatSettings,
  googleImageSettings,
  googleRetryDelayMs,
  refineGoogleError,
} from './google/index.js';
export {
  compatibleChatSettings,
  compatibleModels,
  compatibleModelSchema,
  compatibleProviderSchema,
  compatibleProvidersSchema,
  createOpenAICompatibleAdapter,
  OpenAICompatibleAdapter,
  OPENROUTER_CLAUDE_PRESET,
  reportedCostMicroUsd,
} from './openai-compatible/index.js';
export type { CompatibleConnection, CompatibleModelConfig, CompatibleProviderConfig } from './openai-compatible/index.js';
export {
  builtInCatalogAdapters,
  GENERATED_END,
  GENERATED_START,
  renderProvidersTable,
  usd,
  withGeneratedTable,
} from './docs/index.js';
export {
  classifyFal,
  createFalAdapter,
  FAL_DEFAULT_QUEUE_URL,
  FAL_DEFAULT_RUN_URL,
  FAL_JWKS_URL,
  FAL_KEY_SETTING,
  FAL_MODELS,
  FalAdapter,
  falAppId,
  falVideoSubmission,
  FalWebhookVerifier,
  readFalWebhook,
} from './fal/index.js';
export type { FalAdapterOptions, FalImageEndpoint, FalModel, FalVideoEndpoints, FalVideoSubmission } from './fal/index.js';
export {
  classifyReplicateFailure,
  createReplicateAdapter,
  readReplicateWebhook,
  REPLICATE_DEFAULT_BASE_URL,
  REPLICATE_MODELS,
  REPLICATE_TOKEN_SETTING,
  ReplicateAdapter,
  replicateVideoInput,
  verifyReplicateWebhook,
} from './replicate/index.js';
export type { ReplicateAdapterOptions, ReplicateModel, ReplicateVideoInput } from './replicate/index.js';
export {
  classifyRunwayFailure,
  createRunwayAdapter,
  RUNWAY_API_VERSION,
  RUNWAY_DEFAULT_BASE_URL,
  RUNWAY_MODELS,
  RUNWAY_SECRET_SETTING,
  RunwayAdapter,
  runwayTaskRequest,
} from './runway/index.js';
export type { RunwayAdapterOptions, RunwayModel, RunwayTaskRequest } from './runway/index.js';
export { classifyVeoFailure, createVeoAdapter, VEO_MODELS, VeoAdapter, veoStartOptions } from './google-veo/index.js';
export type { VeoAdapterOptions, VeoModel, VeoStartOptions } from './google-veo/index.js';

// The container module of the built-in adapters (core's TOKENS.Adapters from their settings).
export { ADAPTER_TOKENS, adaptersModule, type BuiltInAdapterSettings } from './di/adapters-module.js';
export { ROUTE_FAMILIES, routeFamiliesFor } from './di/route-families.js';
