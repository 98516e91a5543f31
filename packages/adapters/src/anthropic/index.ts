export { AnthropicAdapter, createAnthropicAdapter } from './anthropic-adapter.js';
export { ANTHROPIC_MODELS, ANTHROPIC_PROVIDER_ID, ANTHROPIC_KEY_SETTING, ANTHROPIC_DEFAULT_BASE_URL, claudeEffortParams, claudeThinkingParams } from './anthropic-models.js';
export { anthropicChatSettings } from './anthropic-mapping.js';
export { refineAnthropicError } from './anthropic-errors.js';
