export { OpenAICompatibleAdapter, createOpenAICompatibleAdapter, type CompatibleConnection } from './compatible-adapter.js';
export {
  compatibleProviderSchema,
  compatibleProvidersSchema,
  compatibleModelSchema,
  type CompatibleProviderConfig,
  type CompatibleModelConfig,
} from './compatible-config.js';
export { compatibleModels } from './compatible-models.js';
export { compatibleChatSettings, reportedCostMicroUsd } from './compatible-mapping.js';
export { OPENROUTER_CLAUDE_PRESET } from './compatible-presets.js';
