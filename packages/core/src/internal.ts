/**
 * `@gengate/core/internal`: everything core exports, for gengate's own packages (`@gengate/host`,
 * `@gengate/adapters`, `@gengate/testing`) and their tests. Not a public API: names here change without
 * notice between releases. An embedder imports `@gengate/core`, an adapter author `@gengate/core/adapter`
 * (docs/public-entries.md).
 *
 * @internal
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
export { CREDITS_PER_USD, MARKUP_ONE, MICRO_PER_CREDIT } from './model/pricing.js';
export type { ImageTokenPrices, LongContextPrices, ModelPricing, PriceSource, PriceVariant } from './model/pricing.js';
export { toModelView } from './model/model.js';
export type { ModelDescriptor, ModelView, ProviderParamsObject, ProviderParamsSchema } from './model/model.js';
export { isEndState, TASK_STATUSES } from './model/task.js';
export type { OutputBodies, TaskOutputFile, TaskRecord, TaskStatus, TaskView, TaskViewSource, TaskWarning } from './model/task.js';
export type { ApiKeyLimits, ApiKeyRecord, ApiKeyView, BudgetPeriod, CreatedApiKeyView, KeyControls, KeyRefusal, KeyUsage } from './model/api-key.js';
export { BUDGET_PERIODS, keyControlsOf, NO_KEY_CONTROLS } from './model/api-key.js';
export type { KeyBudgetStore } from './ports/key-budget-store.js';
export type { MemberBudgetStore, MemberSpendLimit } from './ports/member-budget-store.js';
export { memberSpendOf, toMemberSpendView, type MemberSpend, type MemberSpendView } from './members/member-spend.js';
export type { UserRecord } from './model/user.js';
export { TRANSACTION_STATUSES } from './model/billing.js';
export type {
  BalanceAlertRecord,
  BalanceAlertView,
  BalanceView,
  PaymentMethod,
  TransactionRecord,
  TransactionStatus,
  TransactionView,
} from './model/billing.js';
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
export { modelParametersJsonSchema, modelRequestSchema } from './run/model-request-schema.js';
export type { ModelRequestSchema } from './run/model-request-schema.js';
export { chargeForUsage, maxInputTokens, quoteRun, unitPriceMicroUsd } from './pricing/quote.js';
export type { PriceQuote, ProducedUsage } from './pricing/quote.js';
export { toPricingView } from './pricing/pricing-view.js';
export type { PriceLine, PricingView } from './pricing/pricing-view.js';
export { matchVariant, priceDimensions, priceValues } from './pricing/price-dimensions.js';
export { markupFor, NO_MARKUP, parseMarkupFactor } from './pricing/markup.js';
export type { MarkupPolicy } from './pricing/markup.js';
export { PriceBook } from './pricing/price-book.js';
export { ModelRegistry } from './catalog/model-registry.js';
export { checkModelDeclaration } from './catalog/model-declaration.js';
export { composeAdapters } from './catalog/compose-adapters.js';
export { ERROR_CATALOGUE } from './errors/error-catalogue.js';
export type { ErrorType } from './errors/error-catalogue.js';
export { GatewayError, isGatewayError } from './errors/gateway-error.js';
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
export { upstreamFailureMessage } from './errors/upstream-failure-message.js';
export { capExceeded, USER_CAPS } from './errors/caps.js';
export type { UserCap } from './errors/caps.js';
export {
  adaptAcceptedAdapter,
  ADAPTER_SPECIFICATION_VERSION,
  ADAPTER_SPECIFICATION_VERSION_V3,
  WebhookRejected,
  WebhookUnverifiable,
} from './ports/provider-adapter.js';
export type { AcceptedAdapterSpecificationVersion, AcceptedProviderAdapter, LanguageModelPreference, ProviderAdapterV3, StartedJob } from './ports/provider-adapter.js';
export type {
  AdapterAvailability,
  AdapterCall,
  GeneratedFile,
  GenerationResult,
  InputFile,
  LongRunningStatus,
  ProviderAdapter,
  TokenUsage,
  UpstreamMetadata,
  WebhookEvent,
  WebhookRequest,
} from './ports/provider-adapter.js';
export type {
  AccountBalance,
  ActiveTaskCounts,
  AlertStore,
  ApiKeyPatch,
  BillingLedger,
  CreditEntry,
  IdempotencyStore,
  JobQueue,
  KeyBudgetMail,
  KeyLookupOptions,
  KeyStore,
  NewApiKey,
  NewTask,
  Page,
  TaskListFilter,
  TaskStore,
  TaskSuccess,
  TransactionScope,
  UnitOfWork,
  UserStore,
} from './ports/stores.js';
export type { TaskIntake, TaskIntakeRequest, TaskIntakeResult } from './ports/task-intake.js';
export type { TaskPoll } from './ports/task-poll.js';
export { StoreTaskPoll } from './run/store-task-poll.js';
export { UnitOfWorkTaskIntake } from './run/unit-of-work-task-intake.js';
export type { EndedTask, TaskCompletion, TaskFailureCompletion, TaskSuccessCompletion } from './ports/task-completion.js';
export { NO_TELEMETRY } from './ports/telemetry.js';
export type { SubmissionRefusal, TaskOutcome, Telemetry, UpstreamOperation } from './ports/telemetry.js';
export { OPEN_GATE } from './ports/submission-gate.js';
export type { GateState, SubmissionGate } from './ports/submission-gate.js';
export { NO_USAGE_READER, type UsageReader } from './ports/usage-reader.js';
export { USAGE_GROUPS, providerOfModelId, type UsageCounts, type UsageDimension, type UsageGroup, type UsageGroupRow, type UsageQuery } from './model/usage.js';
export { LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKETS, latencyBucketOf, latencyPercentile } from './model/latency-histogram.js';
export { readOutput } from './services/read-output.js';
export { UsageReport, USAGE_FIGURE_COLUMNS, USAGE_GROUP_COLUMNS } from './services/usage-report.js';
export type { UsageAnswer, UsageFiguresView, UsageReportView, UsageRowView } from './services/usage-report.js';
export { MemoryUsageReader } from './memory/memory-usage-reader.js';
export { ALWAYS_HEALTHY, type CircuitState, type RouteHealth, type RouteHealthState, type RouteOutcome } from './ports/route-health.js';
export { InProcessRouteHealth } from './memory/in-process-route-health.js';
export {
  addTally, admitDecision, classifyOutcome, CLOSED, closedAfterProbe, consecutiveAfter, DEFAULT_FAILURE_CLASSES, emptyTally, extendRun, LATENCY_BOUNDS_MS,
  latencyBucket, latencyP50, NO_RUN, opened, probeReleased, probing, resolveRouteBreakerOptions, secondOf, tallyOf, tripReason, windowStart,
  type AdmitDecision, type BreakerRecord, type FailureRun, type OutcomeKind, type RouteBreakerOptions, type RouteBreakerOptionsInput, type RouteTally, type TripReason,
} from './execution/route-breaker.js';
export { UnitOfWorkTaskCompletion } from './execution/unit-of-work-task-completion.js';
export { blobBytes } from './ports/blob-store.js';
export type { BlobBody, BlobInfo, BlobStore, ByteRange, OpenedBlob, PresignedResponseHeaders, ResultUrlResolver, StoredBlob } from './ports/blob-store.js';
export { silentLogger } from './ports/system.js';
export type { Clock, IdGenerator, LogFn, Logger } from './ports/system.js';
export type { PaymentProcessor } from './ports/payment-processor.js';
export {
  API_KEY_PREFIX,
  generateApiKeySecret,
  hashApiKeySecret,
  hashesEqual,
  looksLikeApiKey,
  maskApiKeySecret,
} from './keys/api-key-secret.js';
export { compileWhitelist, parseIpEntry } from './keys/ip-whitelist.js';
export { createApiKeySchema, MAX_WHITELIST_ENTRIES, updateApiKeySchema } from './keys/api-key-schemas.js';
export { MAX_KEYS_PER_USER } from './model/api-key.js';
export { MAX_ALERTS_PER_USER, MAX_PENDING_TOPUPS_PER_USER } from './model/billing.js';
export type { CreateApiKeyInput, UpdateApiKeyInput } from './keys/api-key-schemas.js';
export {
  atMostSixDecimals,
  createAlertSchema,
  TOPUP_MAX_USD,
  TOPUP_MIN_USD,
  topupSchema,
} from './billing/billing-schemas.js';
export type { AuthContext } from './services/auth-context.js';
export { MAX_PER_PAGE, pageQuerySchema } from './services/pagination.js';
export { toTaskView } from './services/task-view.js';
export { refusePrivateInputs, SubmitRun } from './services/submit-run.js';
export type { RunAccepted } from './services/submit-run.js';
export { InlineRun, RunInline, type InlineAttempt, type InlineOptions, type InlineStart } from './services/run-inline.js';
export {
  modelRoutingPolicySchema,
  requestRoutingSchema,
  routedModelDeclarationSchema,
  routedModelDeclarationsSchema,
  routingPolicySchema,
  ROUTE_SORTS,
  type ModelRoutingPolicy,
  type RequestRouting,
  type RouteAttempt,
  type RouteAttemptOutcome,
  type RoutedModelDeclaration,
  type RouteSort,
  type RouteWeight,
  type RoutingPolicy,
} from './model/routing.js';
export type { RouteAttemptView, TaskRouteView } from './model/task.js';
export { RoutePlanner, type PlanOptions } from './routing/route-planner.js';
export type { RouteCandidate, RoutePlan } from './routing/route-plan.js';
export { fallsBack } from './routing/fallback-rule.js';
export { ROUTED_PROVIDER } from './catalog/routed-model.js';

export { GetTask } from './services/get-task.js';
export { DEFAULT_DEADLINES_MS, ExecuteTask } from './services/execute-task.js';
export type { ExecuteOutcome, ExecuteTaskOptions } from './services/execute-task.js';
export { FailTask } from './services/fail-task.js';
export { CatalogService, listModelsQuerySchema } from './services/catalog.js';
export type { ModelDetailView, ModelListView } from './services/catalog.js';
export { issueApiKey, ManageKeys, REVOKED_MESSAGE, toApiKeyView } from './services/manage-keys.js';
export { CallerRoles, MANAGER_ROLES } from './services/caller-roles.js';
export { Authenticate, CHALLENGE } from './services/authenticate.js';
export type { Authenticated } from './services/authenticate.js';
export { BillingService, toTransactionView } from './services/billing.js';
export type { TopupStarted } from './services/billing.js';
export { AdminService } from './services/admin.js';
export type { CreatedUser } from './services/admin.js';
export { PORT_TOKENS, SETTING_TOKENS, TOKENS, USE_CASE_TOKENS, type TokenName } from './di/tokens.js';
export { coreModule, unitOfWorkTaskWritesModule } from './di/core-module.js';
export {
  configModule,
  coreSettingsModule,
  createGengate,
  createGengateContainer,
  resolveExecutionOptions,
  resolveGengate,
  resolveScheduling,
  resolveUseCases,
  type GengateCoreSettings,
} from './di/create-gengate.js';
export type { CreateGengateOptions, Gengate, GengateCoreConfig, GengateUseCases } from './di/create-gengate.js';
export { MemoryDatabase } from './memory/memory-database.js';
export type { MemoryHold, MemoryJob } from './memory/memory-database.js';
export { MemoryAlertStore } from './memory/memory-alert-store.js';
export { MemoryBillingLedger } from './memory/memory-billing-ledger.js';
export { IDEMPOTENCY_TTL_MS, MemoryIdempotencyStore } from './memory/memory-idempotency-store.js';
export { MemoryJobQueue } from './memory/memory-job-queue.js';
export { MemoryKeyStore } from './memory/memory-key-store.js';
export { MemoryTaskStore } from './memory/memory-task-store.js';
export { MemoryUserStore } from './memory/memory-user-store.js';
export { createMemoryStores, MemoryBlobStore } from './memory/memory-unit-of-work.js';
export type { JsonObject, JsonValue } from './util/json.js';
export { creditsToMicro, microCreditsToMicroUsd, microToCredits, microUsdToUsd, mulDivCeil } from './util/money.js';
export { extensionFor, mediaTypeForExtension } from './util/media-type.js';
export type { KeyRateLimiter, RateLimitDecision, RateLimitState, RateLimitWindow } from './ports/rate-limiter.js';
export { UNLIMITED_CALLS } from './ports/call-limiter.js';
export type { CallPermit, ProviderCallLimiter, ProviderLimits } from './ports/call-limiter.js';
export { MemoryCallLimiter } from './memory/memory-call-limiter.js';
export { checkResult, checkStep, firstStep, pollDelayMs, runToCompletion, stepFromStatus } from './execution/adapter-step.js';
export type { StepResult } from './execution/adapter-step.js';
export { fetchInput, MAX_INPUT_BYTES } from './execution/fetch-input.js';
export { InflightCalls, TaskCancelled } from './execution/inflight-calls.js';
export { defaultPollDelayMs, retryDelayMs } from './execution/retry-policy.js';
export { admitQueued, DEFAULT_SCHEDULING } from './execution/scheduling.js';
export type { SchedulingOptions } from './execution/scheduling.js';
export { checkedResult, DEFAULT_INLINE_RESULT_MAX_BYTES, DEFAULT_MAX_RESULT_BYTES } from './execution/result-limits.js';
export { ForbiddenAddressError, guardedLookup, isForbiddenAddress, isForbiddenHost, isPrivateUrlLiteral } from './util/address-guard.js';
export type { ResolveAll } from './util/address-guard.js';
export { redactSecrets } from './util/redact.js';
export type { Mailer, MailMessage } from './ports/mailer.js';
export { checkBalanceAlerts } from './billing/alert-check.js';
export { completePendingPurchase, PURCHASE_CURRENCY } from './billing/complete-purchase.js';
export type { PaidPurchase, PurchaseOutcome } from './billing/complete-purchase.js';
export { SendAlertMail } from './services/send-alert-mail.js';
export { SendKeyBudgetMail } from './services/send-key-budget-mail.js';
export { budgetPeriodStart, budgetResetsAt } from './keys/key-budget-period.js';
export { MemoryKeyBudgetStore } from './memory/memory-key-budget-store.js';
export { MemoryMemberBudgetStore } from './memory/memory-member-budget-store.js';
export { CANCELLED_MESSAGE, CancelTask } from './services/cancel-task.js';
export { ReceiveWebhook } from './services/receive-webhook.js';
export type { WebhookReceipt } from './services/receive-webhook.js';
export { STUCK_MESSAGE, SweepTasks } from './services/sweep-tasks.js';
export { requestHash } from './run/request-hash.js';
export { isUuid } from './util/uuid.js';
export { ListTasks, listTasksQuerySchema, toTaskListItem } from './services/list-tasks.js';
export type { TaskListItemView, TaskListView } from './services/list-tasks.js';
export { QuoteRun } from './services/quote-run.js';
export type { RunQuoteView } from './services/quote-run.js';
export type { SessionRecord, SessionStore, SignInTokenRecord } from './services/sessions/session-store.js';
export type { SignInLinkQueue, SignInLinkRequest } from './services/sessions/sign-in-link-queue.js';
export {
  csrfTokenFor,
  csrfTokenMatches,
  hashSessionSecret,
  looksLikeSessionSecret,
  newSessionSecret,
} from './services/sessions/session-secrets.js';
export { DashboardAuth, DEFAULT_DASHBOARD_AUTH } from './services/sessions/dashboard-auth.js';
export type { DashboardAuthOptions, SessionUser, VerifyResult } from './services/sessions/dashboard-auth.js';
export { createDashboardServices } from './di/create-dashboard-services.js';
export type { DashboardServices, DashboardServicesConfig } from './di/create-dashboard-services.js';
export { USER_ROLES } from './services/operators/account-directory.js';
export type { AccountDirectory, FailureGroup, TaskCount, UserRole, UserSummary } from './services/operators/account-directory.js';
export { OperatorService } from './services/operators/operator-service.js';
export type { QueueDepth, QueueInspector, UserSummaryView } from './services/operators/operator-service.js';
export { MemoryAccountDirectory, MemorySessionStore } from './memory/memory-dashboard-stores.js';

// Organizations (docs/organizations.md).
export type { InvitationRecord, InvitationStatus, MemberRole, MembershipPatch, MembershipRecord, OrganizationRecord } from './model/organization.js';
export { INVITATION_TTL_MS, MEMBER_ROLES } from './model/organization.js';
export type { InvitationAcceptance, MembershipChange, OrganizationStore, OrganizationWithRole } from './ports/organization-store.js';
export { MemoryOrganizationStore } from './memory/memory-organization-store.js';
export type { InvitationMail, InvitationMailer } from './ports/invitation-mailer.js';
export { NO_INVITATION_MAILER } from './ports/invitation-mailer.js';
export { NO_ORGANIZATION_STORE } from './ports/no-organization-store.js';
export { ManageOrganizations } from './services/organizations/manage-organizations.js';
export { memberOf, requireRole, roleIn, roleOf } from './services/organizations/role-check.js';
export { invitationLinkUrl, invitationMailer } from './services/organizations/invitation-mail.js';
export type { InvitationPreviewView, InvitationView, MemberView, OrganizationView } from './services/organizations/organization-views.js';
