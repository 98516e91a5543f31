export { OpenAIAdapter, createOpenAIAdapter } from './openai-adapter.js';
export { OPENAI_MODELS, OPENAI_PROVIDER_ID, OPENAI_KEY_SETTING, OPENAI_DEFAULT_BASE_URL, openAIChatParams, gptImage2Params, gptImage15Params } from './openai-models.js';
export { openAIChatSettings, openAIImageSettings } from './openai-mapping.js';
export { refineOpenAIError } from './openai-errors.js';
