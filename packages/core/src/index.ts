/**
 * `@gengate/core`: what an embedder needs to run gengate's core in their own process: `createGengate`
 * with its configuration and the tokens to rebind a port or use case, the use cases it returns and the
 * views they answer with, the one error catalogue, the ports to implement (stores, unit of work, blob
 * store, mailer, payment processor, clock, logger, telemetry) with their in-memory implementations, and
 * money units. An adapter author imports `@gengate/core/adapter`; gengate's own packages use
 * `@gengate/core/internal`. See docs/public-entries.md.
 *
 * @packageDocumentation
 */

// Composition: createGengate, its configuration, rebinding.
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
export { PORT_TOKENS, SETTING_TOKENS, TOKENS, USE_CASE_TOKENS, type TokenName } from './di/tokens.js';
export { coreModule, unitOfWorkTaskWritesModule } from './di/core-module.js';
export { createDashboardServices } from './di/create-dashboard-services.js';
export type { DashboardServices, DashboardServicesConfig } from './di/create-dashboard-services.js';

// The use cases a Gengate holds (to call them, or to rebind one with a subclass).
export { SubmitRun } from './services/submit-run.js';
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
export { ListTasks } from './services/list-tasks.js';
export type { TaskListItemView, TaskListView } from './services/list-tasks.js';
export { QuoteRun } from './services/quote-run.js';
export type { RunQuoteView } from './services/quote-run.js';
export { DEFAULT_DEADLINES_MS, ExecuteTask } from './services/execute-task.js';
export type { ExecuteOutcome, ExecuteTaskOptions } from './services/execute-task.js';
export { FailTask } from './services/fail-task.js';
export { CancelTask } from './services/cancel-task.js';
export { CatalogService } from './services/catalog.js';
export type { ModelDetailView, ModelListView } from './services/catalog.js';
export { ManageKeys } from './services/manage-keys.js';
export { CallerRoles, MANAGER_ROLES } from './services/caller-roles.js';
export { Authenticate } from './services/authenticate.js';
export type { Authenticated } from './services/authenticate.js';
export { BillingService } from './services/billing.js';
export type { TopupStarted } from './services/billing.js';
export type { PaidPurchase, PurchaseOutcome } from './billing/complete-purchase.js';
export { AdminService } from './services/admin.js';
export type { CreatedUser } from './services/admin.js';
export { ReceiveWebhook } from './services/receive-webhook.js';
export type { WebhookReceipt } from './services/receive-webhook.js';
export { SweepTasks } from './services/sweep-tasks.js';
export { InflightCalls, TaskCancelled } from './execution/inflight-calls.js';
export { ModelRegistry } from './catalog/model-registry.js';
export { PriceBook } from './pricing/price-book.js';
export type { SchedulingOptions } from './execution/scheduling.js';
export type { MarkupPolicy } from './pricing/markup.js';
export type { AuthContext } from './services/auth-context.js';

// What the use cases answer with.
export { isEndState, TASK_STATUSES } from './model/task.js';
export type { OutputBodies, TaskOutputFile, TaskRecord, TaskStatus, TaskView, TaskViewSource, TaskWarning } from './model/task.js';
export type { ModelDescriptor, ModelView } from './model/model.js';
export type { Modality } from './model/modality.js';
export type { ApiKeyLimits, ApiKeyRecord, ApiKeyView, BudgetPeriod, CreatedApiKeyView, KeyControls, KeyRefusal, KeyUsage } from './model/api-key.js';
export { BUDGET_PERIODS, keyControlsOf, NO_KEY_CONTROLS } from './model/api-key.js';
export type { KeyBudgetStore } from './ports/key-budget-store.js';
export type { MemberBudgetStore, MemberSpendLimit } from './ports/member-budget-store.js';
export type { UserRecord } from './model/user.js';
export type { InvitationRecord, InvitationStatus, MemberRole, MembershipPatch, MembershipRecord, OrganizationRecord } from './model/organization.js';
export { INVITATION_TTL_MS, MEMBER_ROLES } from './model/organization.js';
export type { InvitationAcceptance, MembershipChange, OrganizationStore, OrganizationWithRole } from './ports/organization-store.js';
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
export type { PriceLine, PricingView } from './pricing/pricing-view.js';
export type { PriceQuote, ProducedUsage } from './pricing/quote.js';
export type { ModelPricing, PriceSource } from './model/pricing.js';
export type { ModelCapabilities } from './model/capabilities.js';
export type { RunRequest } from './model/run-request.schema.js';

// The one error catalogue.
export { ERROR_CATALOGUE } from './errors/error-catalogue.js';
export type { ErrorType } from './errors/error-catalogue.js';
export { GatewayError, isGatewayError } from './errors/gateway-error.js';
export type { ErrorBody, GatewayErrorOptions } from './errors/gateway-error.js';
export { isUpstreamError, UPSTREAM_ERROR_KINDS, UpstreamError } from './errors/upstream-error.js';
export type { UpstreamErrorKind, UpstreamErrorOptions } from './errors/upstream-error.js';

// Ports an embedder may implement or replace, and their in-memory implementations.
export type { AcceptedProviderAdapter, LanguageModelPreference, ProviderAdapter } from './ports/provider-adapter.js';
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
export type { EndedTask, TaskCompletion, TaskFailureCompletion, TaskSuccessCompletion } from './ports/task-completion.js';
export { NO_TELEMETRY } from './ports/telemetry.js';
export type { SubmissionRefusal, TaskOutcome, Telemetry, UpstreamOperation } from './ports/telemetry.js';
export { OPEN_GATE } from './ports/submission-gate.js';
export type { GateState, SubmissionGate } from './ports/submission-gate.js';
export { NO_USAGE_READER, type UsageReader } from './ports/usage-reader.js';
export { USAGE_GROUPS, providerOfModelId, type UsageCounts, type UsageDimension, type UsageGroup, type UsageGroupRow, type UsageQuery } from './model/usage.js';
export { LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKETS, latencyBucketOf, latencyPercentile } from './model/latency-histogram.js';
export { UsageReport, USAGE_FIGURE_COLUMNS, USAGE_GROUP_COLUMNS } from './services/usage-report.js';
export type { UsageAnswer, UsageFiguresView, UsageReportView, UsageRowView } from './services/usage-report.js';
export { MemoryUsageReader } from './memory/memory-usage-reader.js';
export { ALWAYS_HEALTHY, type CircuitState, type RouteHealth, type RouteHealthState, type RouteOutcome } from './ports/route-health.js';
export { InProcessRouteHealth } from './memory/in-process-route-health.js';
export { DEFAULT_FAILURE_CLASSES, resolveRouteBreakerOptions, type RouteBreakerOptions, type RouteBreakerOptionsInput } from './execution/route-breaker.js';
export { blobBytes } from './ports/blob-store.js';
export { readOutput } from './services/read-output.js';
export type { BlobBody, BlobInfo, BlobStore, ByteRange, OpenedBlob, PresignedResponseHeaders, ResultUrlResolver, StoredBlob } from './ports/blob-store.js';
export { silentLogger } from './ports/system.js';
export type { Clock, IdGenerator, LogFn, Logger } from './ports/system.js';
export type { PaymentProcessor } from './ports/payment-processor.js';
export type { Mailer, MailMessage } from './ports/mailer.js';
export type { KeyRateLimiter, RateLimitDecision, RateLimitState, RateLimitWindow } from './ports/rate-limiter.js';
export { UNLIMITED_CALLS } from './ports/call-limiter.js';
export type { CallPermit, ProviderCallLimiter, ProviderLimits } from './ports/call-limiter.js';
export { MemoryDatabase } from './memory/memory-database.js';
export type { MemoryHold, MemoryJob } from './memory/memory-database.js';
export { createMemoryStores, MemoryBlobStore } from './memory/memory-unit-of-work.js';
export { MemoryCallLimiter } from './memory/memory-call-limiter.js';
export type { SessionRecord, SessionStore, SignInTokenRecord } from './services/sessions/session-store.js';
export type { AccountDirectory, FailureGroup, TaskCount, UserRole, UserSummary } from './services/operators/account-directory.js';
export { MemoryAccountDirectory, MemorySessionStore } from './memory/memory-dashboard-stores.js';

// Money: integer micro-units.
export { CREDITS_PER_USD, MICRO_PER_CREDIT } from './model/pricing.js';
export { creditsToMicro, microCreditsToMicroUsd, microToCredits, microUsdToUsd } from './util/money.js';
export type { JsonObject, JsonValue } from './util/json.js';

// Organizations (docs/organizations.md).
export { MemoryOrganizationStore } from './memory/memory-organization-store.js';
export type { InvitationMail, InvitationMailer } from './ports/invitation-mailer.js';
export { NO_INVITATION_MAILER } from './ports/invitation-mailer.js';
export { NO_ORGANIZATION_STORE } from './ports/no-organization-store.js';
export { ManageOrganizations } from './services/organizations/manage-organizations.js';
export { memberOf, requireRole, roleIn, roleOf } from './services/organizations/role-check.js';
export { invitationLinkUrl, invitationMailer } from './services/organizations/invitation-mail.js';
export type { InvitationPreviewView, InvitationView, MemberView, OrganizationView } from './services/organizations/organization-views.js';
