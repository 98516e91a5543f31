export { callUpstream, isRefusal, originOf, redactUpstreamError, withoutTrailingSlash } from './upstream-http.js';
export type { ClassifyFailure, UpstreamAnswer, UpstreamRequest } from './upstream-http.js';
export { upstreamErrorFromAiSdk } from './ai-sdk-errors.js';
export { progressFromLogs } from './progress.js';
export { dataUri, mediaTypeFromUrl } from './media.js';
export { backoffMs, readHandle } from './handle.js';
export { taskWarningsFromSdk } from './sdk-warnings.js';
export type { SdkWarning } from './sdk-warnings.js';
