import { randomUUID } from 'node:crypto';
import 'reflect-metadata';
import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';
import type { ModelRegistry } from '../catalog/model-registry.js';
import { DEFAULT_DEADLINES_MS, type ExecuteTaskOptions } from '../execution/execution-options.js';
import { fetchInput } from '../execution/fetch-input.js';
import type { InflightCalls } from '../execution/inflight-calls.js';
import { DEFAULT_INLINE_RESULT_MAX_BYTES, DEFAULT_MAX_RESULT_BYTES } from '../execution/result-limits.js';
import { DEFAULT_SCHEDULING, type SchedulingOptions } from '../execution/scheduling.js';
import { NO_MARKUP, type MarkupPolicy } from '../pricing/markup.js';
import type { PriceBook } from '../pricing/price-book.js';
import type { BlobStore, ResultUrlResolver } from '../ports/blob-store.js';
import { UNLIMITED_CALLS, type ProviderCallLimiter } from '../ports/call-limiter.js';
import type { PaymentProcessor } from '../ports/payment-processor.js';
import type { AcceptedProviderAdapter } from '../ports/provider-adapter.js';
import type { TaskStore, TransactionScope, UnitOfWork } from '../ports/stores.js';
import { silentLogger, type Clock, type IdGenerator, type Logger } from '../ports/system.js';
import type { TaskCompletion } from '../ports/task-completion.js';
import type { TaskIntake } from '../ports/task-intake.js';
import type { TaskPoll } from '../ports/task-poll.js';
import { OPEN_GATE, type SubmissionGate } from '../ports/submission-gate.js';
import { NO_TELEMETRY, type Telemetry } from '../ports/telemetry.js';
import { ALWAYS_HEALTHY, type RouteHealth } from '../ports/route-health.js';
import { routedModelDeclarationsSchema, type RoutedModelDeclaration } from '../model/routing.js';
import type { AdminService } from '../services/admin.js';
import type { Authenticate } from '../services/authenticate.js';
import type { BillingService } from '../services/billing.js';
import type { CallerRoles } from '../services/caller-roles.js';
import type { CancelTask } from '../services/cancel-task.js';
import type { CatalogService } from '../services/catalog.js';
import type { ExecuteTask } from '../services/execute-task.js';
import type { FailTask } from '../services/fail-task.js';
import type { GetTask } from '../services/get-task.js';
import type { ListTasks } from '../services/list-tasks.js';
import type { ManageKeys } from '../services/manage-keys.js';
import type { ManageOrganizations } from '../services/organizations/manage-organizations.js';
import { NO_INVITATION_MAILER, type InvitationMailer } from '../ports/invitation-mailer.js';
import type { OrganizationStore } from '../ports/organization-store.js';
import { NO_ORGANIZATION_STORE } from '../ports/no-organization-store.js';
import type { QuoteRun } from '../services/quote-run.js';
import type { ReceiveWebhook } from '../services/receive-webhook.js';
import type { RunInline } from '../services/run-inline.js';
import type { SubmitRun } from '../services/submit-run.js';
import type { SweepTasks } from '../services/sweep-tasks.js';
import type { UsageReport } from '../services/usage-report.js';
import { NO_USAGE_READER, type UsageReader } from '../ports/usage-reader.js';
import { coreModule, unitOfWorkTaskWritesModule } from './core-module.js';
import { TOKENS } from './tokens.js';

export interface GengateCoreConfig {
  /** The adapters to serve: v4, or v3 for one release (the registry adapts it). */
  readonly adapters: readonly AcceptedProviderAdapter[];
  /** Stores outside any transaction (each call commits on its own). */
  readonly stores: TransactionScope;
  readonly unitOfWork: UnitOfWork;
  /** Writes accepted submissions; default: over the unit of work (the PostgreSQL host binds a one-round-trip one). */
  readonly taskIntake?: TaskIntake;
  /** Commits successes; default: over the unit of work (the PostgreSQL host binds a one-round-trip one). */
  readonly taskCompletion?: TaskCompletion;
  /** Answers polls of a task; default: over the task and key stores (the PostgreSQL host binds a one-statement one). */
  readonly taskPoll?: TaskPoll;
  readonly blobStore: BlobStore;
  readonly resultUrls: ResultUrlResolver;
  readonly paymentProcessor: PaymentProcessor;
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly execution?: Partial<Omit<ExecuteTaskOptions, 'scheduling'>>;
  /** Per-user running slots and queue length, attempts per task. */
  readonly scheduling?: Partial<SchedulingOptions>;
  /** The operator's markup over upstream costs; default none (x1.0). */
  readonly markup?: MarkupPolicy;
  /** Per-provider call limits shared by the worker processes; default unlimited. */
  readonly callLimiter?: ProviderCallLimiter;
  /** Development only: accept reference inputs on loopback and private addresses. Default false. */
  readonly allowPrivateInputs?: boolean;
  /** Metrics the use cases report (the host binds prom-client); default none. */
  readonly telemetry?: Telemetry;
  /** Back-pressure before a submission writes anything; default always open. */
  readonly submissionGate?: SubmissionGate;
  /** The routes' circuit breakers, shared by every process (the host binds one kept in PostgreSQL); default every route admitted. */
  readonly routeHealth?: RouteHealth;
  /** The usage rollups GET /usage reads (the PostgreSQL host and createMemoryStores give one); default none: usage answers 503. */
  readonly usageReader?: UsageReader;
  /** Organizations, members and invitations (the PostgreSQL host and createMemoryStores give one); default none: they answer 503. */
  readonly organizations?: OrganizationStore;
  /** Mails invitation links (the host builds one from its mailer and public URL: `invitationMailer`); default none: inviting answers 503. */
  readonly invitationMailer?: InvitationMailer;
  /** Routed models (one id, several provider routes, a policy); each is checked against the catalog at start. Default none. */
  readonly routedModels?: readonly RoutedModelDeclaration[];
  /** The random source of the routes' weighted choice; default Math.random. */
  readonly random?: () => number;
}

/** The use cases an HTTP layer or worker calls. */
export interface Gengate {
  readonly container: Container;
  readonly registry: ModelRegistry;
  readonly submitRun: SubmitRun;
  /** Calls the API process runs itself (streamed chat on /v1): the same hold, task and settlement. */
  readonly runInline: RunInline;
  readonly getTask: GetTask;
  readonly listTasks: ListTasks;
  readonly quoteRun: QuoteRun;
  readonly executeTask: ExecuteTask;
  readonly failTask: FailTask;
  readonly cancelTask: CancelTask;
  readonly catalog: CatalogService;
  readonly keys: ManageKeys;
  /** Organizations, members and invitations (docs/organizations.md). */
  readonly organizations: ManageOrganizations;
  readonly authenticate: Authenticate;
  readonly billing: BillingService;
  readonly admin: AdminService;
  readonly receiveWebhook: ReceiveWebhook;
  readonly sweepTasks: SweepTasks;
  /** GET /usage and the operator's usage over the rollups. */
  readonly usage: UsageReport;
  /** The caller's role in its organization (the role gates of docs/organizations.md). */
  readonly roles: CallerRoles;
  readonly inflight: InflightCalls;
  readonly prices: PriceBook;
  readonly logger: Logger;
  /**
   * The ports the host's own composition needs besides the use cases (file downloads read task records,
   * ensureUser writes users, the maintenance jobs read the stores), resolved like the use cases: whoever
   * needs one takes it here once, at composition, instead of looking it up in the container.
   */
  readonly stores: TransactionScope;
  readonly tasks: TaskStore;
  readonly unitOfWork: UnitOfWork;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** The routes' circuit breakers (the operator view and `/metrics` read their states). */
  readonly routeHealth: RouteHealth;
}

/** The use cases and ports of a Gengate without its container: what a route or worker may be given. */
export type GengateUseCases = Omit<Gengate, 'container'>;

export interface CreateGengateOptions {
  /**
   * Called once every port and use case is bound and before anything is resolved: rebind any token here
   * (`container.rebind(TOKENS.Clock).toConstantValue(myClock)`, or a use case such as `TOKENS.FailTask`), and
   * that binding is what runs, for the use cases that depend on it as well.
   */
  readonly configure?: (container: Container) => void;
}

/** What a configuration tunes besides the ports it must give: the settings and the optional ports. */
export type GengateCoreSettings = Omit<GengateCoreConfig, 'adapters' | 'stores' | 'unitOfWork' | 'taskIntake' | 'taskCompletion' | 'blobStore' | 'resultUrls' | 'paymentProcessor'>;

/** The scheduling of a configuration over the defaults (the per-modality running slots merged one level deep). */
export function resolveScheduling(partial: Partial<SchedulingOptions> = {}): SchedulingOptions {
  return { ...DEFAULT_SCHEDULING, ...partial, maxRunningPerUser: { ...DEFAULT_SCHEDULING.maxRunningPerUser, ...partial.maxRunningPerUser } };
}

/** The execution options of a configuration over the defaults (reference inputs read through `fetch` unless given). */
export function resolveExecutionOptions(partial: GengateCoreConfig['execution'] = {}, scheduling: SchedulingOptions = resolveScheduling()): ExecuteTaskOptions {
  const fetchImpl = partial.fetch ?? globalThis.fetch;
  return {
    deadlineMs: { ...DEFAULT_DEADLINES_MS, ...partial.deadlineMs },
    fetch: fetchImpl,
    maxResultBytes: { ...DEFAULT_MAX_RESULT_BYTES, ...partial.maxResultBytes },
    inlineResultMaxBytes: partial.inlineResultMaxBytes ?? DEFAULT_INLINE_RESULT_MAX_BYTES,
    scheduling,
    secrets: partial.secrets ?? [],
    readInput: partial.readInput ?? fetchInput(fetchImpl),
    webhookUrl: partial.webhookUrl ?? (() => null),
  };
}

/**
 * The settings of a configuration and the defaults of its optional ports (logger, clock, ids, call
 * limiter, telemetry, submission gate), each a constant. A token a module loaded before has bound is
 * left as it is: the PostgreSQL host binds its own call limiter, telemetry and execution options.
 */
export function coreSettingsModule(settings: GengateCoreSettings): ContainerModule {
  const scheduling = resolveScheduling(settings.scheduling);
  const execution = resolveExecutionOptions(settings.execution, scheduling);
  return new ContainerModule(({ bind, isBound }) => {
    const constant = <T>(token: ServiceIdentifier<T>, value: T): void => {
      if (!isBound(token)) bind(token).toConstantValue(value);
    };
    constant(TOKENS.Logger, settings.logger ?? silentLogger);
    constant(TOKENS.Clock, settings.clock ?? { now: () => new Date() });
    constant(TOKENS.Ids, settings.ids ?? { uuid: () => randomUUID() });
    constant(TOKENS.CallLimiter, settings.callLimiter ?? UNLIMITED_CALLS);
    constant(TOKENS.Telemetry, settings.telemetry ?? NO_TELEMETRY);
    constant(TOKENS.SubmissionGate, settings.submissionGate ?? OPEN_GATE);
    constant(TOKENS.RouteHealth, settings.routeHealth ?? ALWAYS_HEALTHY);
    constant(TOKENS.UsageReader, settings.usageReader ?? NO_USAGE_READER);
    constant(TOKENS.OrganizationStore, settings.organizations ?? NO_ORGANIZATION_STORE);
    constant(TOKENS.InvitationMailer, settings.invitationMailer ?? NO_INVITATION_MAILER);
    constant(TOKENS.ExecutionOptions, execution);
    constant(TOKENS.Scheduling, scheduling);
    constant(TOKENS.Markup, settings.markup ?? NO_MARKUP);
    constant(TOKENS.AllowPrivateInputs, settings.allowPrivateInputs ?? false);
    constant(TOKENS.RoutedModels, routedModelDeclarationsSchema.parse(settings.routedModels ?? []));
    constant(TOKENS.Random, settings.random ?? Math.random);
  });
}

/**
 * The ports a configuration gives, each a constant (a value the embedder built, so its lifetime is the
 * container's). Its settings and optional ports are `coreSettingsModule`'s.
 */
export function configModule(config: GengateCoreConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Adapters).toConstantValue(config.adapters);
    bind(TOKENS.Stores).toConstantValue(config.stores);
    bind(TOKENS.UnitOfWork).toConstantValue(config.unitOfWork);
    // Without them, unitOfWorkTaskWritesModule binds the ones over the unit of work.
    if (config.taskIntake) bind(TOKENS.TaskIntake).toConstantValue(config.taskIntake);
    if (config.taskCompletion) bind(TOKENS.TaskCompletion).toConstantValue(config.taskCompletion);
    if (config.taskPoll) bind(TOKENS.TaskPoll).toConstantValue(config.taskPoll);
    bind(TOKENS.BlobStore).toConstantValue(config.blobStore);
    bind(TOKENS.ResultUrls).toConstantValue(config.resultUrls);
    bind(TOKENS.PaymentProcessor).toConstantValue(config.paymentProcessor);
  });
}

/**
 * The container with the given ports and gengate's use cases bound, nothing resolved yet. An embedder may
 * rebind any token on it, then call `resolveGengate`. (`createGengate(config, { configure })` does both.)
 */
export function createGengateContainer(config: GengateCoreConfig): Container {
  const container = new Container();
  container.load(configModule(config), coreSettingsModule(config), unitOfWorkTaskWritesModule, coreModule);
  return container;
}

/**
 * The use cases of a container, each resolved on first use (and then kept: they are singletons). Rebind
 * before the first use of anything that depends on the rebound token.
 */
export function resolveGengate(container: Container): Gengate {
  const lazy = <T>(token: ServiceIdentifier<T>): PropertyDescriptor => {
    let resolved: { readonly value: T } | null = null;
    return {
      enumerable: true,
      get: (): T => (resolved ??= { value: container.get(token) }).value,
    };
  };
  const gengate = { container } as Gengate;
  Object.defineProperties(gengate, {
    registry: lazy(TOKENS.Registry),
    submitRun: lazy(TOKENS.SubmitRun),
    runInline: lazy(TOKENS.RunInline),
    getTask: lazy(TOKENS.GetTask),
    listTasks: lazy(TOKENS.ListTasks),
    quoteRun: lazy(TOKENS.QuoteRun),
    executeTask: lazy(TOKENS.ExecuteTask),
    failTask: lazy(TOKENS.FailTask),
    cancelTask: lazy(TOKENS.CancelTask),
    catalog: lazy(TOKENS.Catalog),
    keys: lazy(TOKENS.ManageKeys),
    organizations: lazy(TOKENS.ManageOrganizations),
    authenticate: lazy(TOKENS.Authenticate),
    billing: lazy(TOKENS.Billing),
    admin: lazy(TOKENS.Admin),
    receiveWebhook: lazy(TOKENS.ReceiveWebhook),
    sweepTasks: lazy(TOKENS.SweepTasks),
    usage: lazy(TOKENS.UsageReport),
    roles: lazy(TOKENS.CallerRoles),
    inflight: lazy(TOKENS.InflightCalls),
    prices: lazy(TOKENS.PriceBook),
    logger: lazy(TOKENS.Logger),
    stores: lazy(TOKENS.Stores),
    tasks: lazy(TOKENS.TaskStore),
    unitOfWork: lazy(TOKENS.UnitOfWork),
    clock: lazy(TOKENS.Clock),
    ids: lazy(TOKENS.Ids),
    routeHealth: lazy(TOKENS.RouteHealth),
  });
  return gengate;
}

/**
 * Every use case and port of a Gengate resolved now, as a plain object without the container: what the
 * host gives its routers and workers at composition, so that nothing is looked up in the container while
 * a request is served. Resolve after the last rebinding (createGengate's `configure` runs before).
 */
export function resolveUseCases(gengate: GengateUseCases): GengateUseCases {
  const g = gengate;
  return {
    registry: g.registry, submitRun: g.submitRun, runInline: g.runInline, getTask: g.getTask, listTasks: g.listTasks, quoteRun: g.quoteRun,
    executeTask: g.executeTask, failTask: g.failTask, cancelTask: g.cancelTask, catalog: g.catalog, keys: g.keys, organizations: g.organizations, authenticate: g.authenticate,
    billing: g.billing, admin: g.admin, receiveWebhook: g.receiveWebhook, sweepTasks: g.sweepTasks, usage: g.usage, roles: g.roles, inflight: g.inflight, prices: g.prices,
    logger: g.logger, stores: g.stores, tasks: g.tasks, unitOfWork: g.unitOfWork, clock: g.clock, ids: g.ids, routeHealth: g.routeHealth,
  };
}

/**
 * Builds the container from the given ports, lets `options.configure` rebind any token, and returns the
 * use cases (resolved lazily, so the rebindings are what runs).
 */
export function createGengate(config: GengateCoreConfig, options: CreateGengateOptions = {}): Gengate {
  const container = createGengateContainer(config);
  options.configure?.(container);
  return resolveGengate(container);
}
