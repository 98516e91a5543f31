export { GoogleAdapter, createGoogleAdapter } from './google-adapter.js';
export { GOOGLE_MODELS, GOOGLE_PROVIDER_ID, GOOGLE_KEY_SETTING, GOOGLE_DEFAULT_BASE_URL, GEMINI_IMAGE_SIZES, geminiChatParams } from './google-models.js';
export { googleChatSettings, googleImageSettings } from './google-mapping.js';
export { refineGoogleError, googleRetryDelayMs, googleBlockedReason } from './google-errors.js';
