export type { ChatSettings, ImageSettings, Mapped } from './call-settings.js';
export { keyAvailability, type ProviderConnection } from './credentials.js';
export { runChat, type ChatRunContext } from './run-chat.js';
export { runImage, type ImageRunContext } from './run-image.js';
export { SdkAdapter, asProviderParams, type SdkModelEntry } from './sdk-adapter.js';
export { toUpstreamError, errorCodes, type ErrorRefinement, type SdkErrorContext } from './sdk-error.js';
export { taskWarningsFrom } from './sdk-warnings.js';
