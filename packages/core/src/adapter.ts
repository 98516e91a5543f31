/**
 * `@gengate/core/adapter`: what an adapter author needs from core: the adapter specification
 * (`ProviderAdapter` and its call, result, webhook and handle types), the model descriptor with its
 * capabilities and price data, the run request and its normalized forms, upstream errors and their
 * classification, JSON and media-type helpers, redaction, and the step helpers an adapter's own tests
 * drive. The higher-level helpers (upstream calls, AI SDK error translation, polling, webhooks) are the
 * adapter kit, `@gengate/adapters/kit`. See docs/public-entries.md.
 *
 * @packageDocumentation
 */
export {
  ASPECT_RATIO_PATTERN,
  aspectRatioSchema,
  COMMON_ASPECT_RATIOS,
  MODALITIES,
  modalitySchema,
  ratioValue,
  RESOLUTION_PATTERN,
  videoResolutionSchema,
} from './model/modality.js';
export type { AspectRatio, Modality, VideoResolution } from './model/modality.js';
export type {
  ChatCapabilities,
  ImageCapabilities,
  ImageSizes,
  ModelCapabilities,
  VideoCapabilities,
} from './model/capabilities.js';
export type { ImageTokenPrices, LongContextPrices, ModelPricing, PriceSource, PriceVariant } from './model/pricing.js';
export type { ModelDescriptor, ProviderParamsObject, ProviderParamsSchema } from './model/model.js';
export type { TaskWarning } from './model/task.js';
export {
  httpUrlSchema,
  imageParamsSchema,
  llmParamsSchema,
  providerParamsSchema,
  RUN_LIMITS,
  runRequestSchema,
  videoParamsSchema,
} from './model/run-request.schema.js';
export type { ImageParams, LlmParams, RunRequest, VideoParams } from './model/run-request.schema.js';
export type {
  NormalizedChatRequest,
  NormalizedCommon,
  NormalizedImageRequest,
  NormalizedRequest,
  NormalizedVideoRequest,
} from './model/normalized-request.js';
export { normalizeRunRequest, sizeForAspectRatio, validateRunRequest } from './run/normalize-request.js';
export { modelParametersJsonSchema } from './run/model-request-schema.js';
export type { PriceQuote, ProducedUsage } from './pricing/quote.js';
export { PriceBook } from './pricing/price-book.js';
export type { MarkupPolicy } from './pricing/markup.js';
export type { PriceLine, PricingView } from './pricing/pricing-view.js';
export { checkModelDeclaration } from './catalog/model-declaration.js';
export { GatewayError, isGatewayError } from './errors/gateway-error.js';
export { ERROR_CATALOGUE } from './errors/error-catalogue.js';
export type { ErrorType } from './errors/error-catalogue.js';
export type { ErrorBody, GatewayErrorOptions } from './errors/gateway-error.js';
export { isUpstreamError, UPSTREAM_ERROR_KINDS, UpstreamError } from './errors/upstream-error.js';
export type { UpstreamErrorKind, UpstreamErrorOptions } from './errors/upstream-error.js';
export {
  classifyHttpStatus,
  parseRetryAfterMs,
  upstreamErrorDetail,
  upstreamErrorFromNetwork,
  upstreamErrorFromResponse,
  upstreamRequestId,
} from './errors/upstream-response.js';
export type { UpstreamResponseLike } from './errors/upstream-response.js';
export {
  adaptAcceptedAdapter,
  ADAPTER_SPECIFICATION_VERSION,
  ADAPTER_SPECIFICATION_VERSION_V3,
  WebhookRejected,
  WebhookUnverifiable,
} from './ports/provider-adapter.js';
export type {
  AcceptedAdapterSpecificationVersion,
  AcceptedProviderAdapter,
  AdapterAvailability,
  AdapterCall,
  GeneratedFile,
  GenerationResult,
  InputFile,
  LanguageModelPreference,
  LongRunningStatus,
  ProviderAdapter,
  ProviderAdapterV3,
  StartedJob,
  TokenUsage,
  UpstreamMetadata,
  WebhookEvent,
  WebhookRequest,
} from './ports/provider-adapter.js';
export { checkResult, checkStep, firstStep, pollDelayMs, runToCompletion, stepFromStatus } from './execution/adapter-step.js';
export type { StepResult } from './execution/adapter-step.js';
export type { JsonObject, JsonValue } from './util/json.js';
export { extensionFor, mediaTypeForExtension } from './util/media-type.js';
export { redactSecrets } from './util/redact.js';
