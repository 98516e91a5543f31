/*
 * @gengate/adapters/kit: everything an adapter author needs beside @gengate/core's contract, and what every
 * built-in adapter is made of. Upstream HTTP calls with classified errors (callUpstream, UpstreamClient),
 * the AI SDK error translator (toUpstreamError), the redactor, the warning mapper, polling schedules and
 * handles, webhook key caching, and the shared shape of AI-SDK-based adapters (SdkAdapter, runChat, runImage).
 */
export { callUpstream, isRefusal, originOf, parseAnswer, UpstreamClient, withoutTrailingSlash } from './upstream-http.js';
export type { ClassifyFailure, UpstreamAnswer, UpstreamClientOptions, UpstreamRequest } from './upstream-http.js';
export { redactUpstreamError } from './redact.js';
export { errorCodes, toUpstreamError } from './sdk-error.js';
export type { ErrorRefinement, SdkErrorContext } from './sdk-error.js';
export { taskWarningsFrom } from './warnings.js';
export type { WarningModality } from './warnings.js';
export { backoffMs, fraction, pollDelay, readHandle } from './polling.js';
export type { PollSchedule } from './polling.js';
export { progressFromLogs } from './progress.js';
export { dataUri, mediaTypeFromUrl } from './media.js';
export { WebhookKeys, WEBHOOK_KEYS_MIN_INTERVAL_MS } from './webhook-keys.js';
export type { WebhookKeysOptions } from './webhook-keys.js';
export { ModelTable } from './model-table.js';
export { keyAvailability, NO_KEY } from './credentials.js';
export type { ProviderConnection } from './credentials.js';
export type { ChatSettings, ImageSettings, Mapped } from './call-settings.js';
export { runChat } from './run-chat.js';
export type { ChatRunContext } from './run-chat.js';
export { runImage } from './run-image.js';
export type { ImageRunContext } from './run-image.js';
export { asProviderParams, SdkAdapter } from './sdk-adapter.js';
export type { SdkModelEntry } from './sdk-adapter.js';
