import { randomUUID } from 'node:crypto';
import { Container, ContainerModule } from 'inversify';
import { ModelRegistry } from '../catalog/model-registry.js';
import { DEFAULT_DEADLINES_MS, type ExecuteTaskOptions } from '../execution/execution-options.js';
import { fetchInput } from '../execution/fetch-input.js';
import { DEFAULT_MAX_RESULT_BYTES } from '../execution/result-limits.js';
import { InflightCalls } from '../execution/inflight-calls.js';
import { DEFAULT_SCHEDULING, type SchedulingOptions } from '../execution/scheduling.js';
import { NO_MARKUP, type MarkupPolicy } from '../pricing/markup.js';
import { PriceBook } from '../pricing/price-book.js';
import type { BlobStore, ResultUrlResolver } from '../ports/blob-store.js';
import { UNLIMITED_CALLS, type ProviderCallLimiter } from '../ports/call-limiter.js';
import type { PaymentProcessor } from '../ports/payment-processor.js';
import type { ProviderAdapter } from '../ports/provider-adapter.js';
import { silentLogger, type Clock, type IdGenerator, type Logger } from '../ports/system.js';
import type { TransactionScope, UnitOfWork } from '../ports/stores.js';
import type { TaskIntake } from '../ports/task-intake.js';
import type { TaskCompletion } from '../ports/task-completion.js';
import { OPEN_GATE, type SubmissionGate } from '../ports/submission-gate.js';
import { NO_TELEMETRY, type Telemetry } from '../ports/telemetry.js';
import { UnitOfWorkTaskCompletion } from '../execution/unit-of-work-task-completion.js';
import { UnitOfWorkTaskIntake } from '../run/unit-of-work-task-intake.js';
import { AdminService } from '../services/admin.js';
import { Authenticate } from '../services/authenticate.js';
import { BillingService } from '../services/billing.js';
import { CancelTask } from '../services/cancel-task.js';
import { CatalogService } from '../services/catalog.js';
import { ExecuteTask } from '../services/execute-task.js';
import { FailTask } from '../services/fail-task.js';
import { GetTask } from '../services/get-task.js';
import { ManageKeys } from '../services/manage-keys.js';
import { SubmitRun } from '../services/submit-run.js';
import { ReceiveWebhook } from '../services/receive-webhook.js';
import { SweepTasks } from '../services/sweep-tasks.js';
import { ListTasks } from '../services/list-tasks.js';
import { QuoteRun } from '../services/quote-run.js';
import { TOKENS } from './tokens.js';

/** The use cases, built from the ports bound in the container (no decorators: works under any runner). */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Registry).toDynamicValue((c) => new ModelRegistry(c.get(TOKENS.Adapters))).inSingletonScope();
  bind(TOKENS.InflightCalls).toDynamicValue(() => new InflightCalls()).inSingletonScope();
  bind(TOKENS.SubmitRun)
    .toDynamicValue(
      (c) =>
        new SubmitRun(
          c.get(TOKENS.Registry),
          c.get(TOKENS.TaskIntake),
          c.get(TOKENS.Ids),
          c.get(TOKENS.Logger),
          c.get(TOKENS.PriceBook),
          c.get(TOKENS.Scheduling),
          c.get(TOKENS.AllowPrivateInputs),
          c.get(TOKENS.SubmissionGate),
          c.get(TOKENS.Telemetry),
        ),
    )
    .inSingletonScope();
  bind(TOKENS.GetTask).toDynamicValue((c) => new GetTask(c.get(TOKENS.Stores).tasks, c.get(TOKENS.ResultUrls))).inSingletonScope();
  bind(TOKENS.ListTasks).toDynamicValue((c) => new ListTasks(c.get(TOKENS.Stores).tasks, c.get(TOKENS.ResultUrls))).inSingletonScope();
  bind(TOKENS.QuoteRun)
    .toDynamicValue((c) => new QuoteRun(c.get(TOKENS.Registry), c.get(TOKENS.PriceBook), c.get(TOKENS.Stores).ledger, c.get(TOKENS.AllowPrivateInputs)))
    .inSingletonScope();
  bind(TOKENS.FailTask)
    .toDynamicValue((c) => {
      const registry = c.get(TOKENS.Registry);
      return new FailTask(c.get(TOKENS.UnitOfWork), c.get(TOKENS.Scheduling), c.get(TOKENS.Telemetry), (id) => registry.find(id)?.provider);
    })
    .inSingletonScope();
  bind(TOKENS.CancelTask)
    .toDynamicValue(
      (c) =>
        new CancelTask(c.get(TOKENS.Stores).tasks, c.get(TOKENS.GetTask), c.get(TOKENS.FailTask), c.get(TOKENS.Registry), c.get(TOKENS.Logger), c.get(TOKENS.InflightCalls)),
    )
    .inSingletonScope();
  bind(TOKENS.ExecuteTask)
    .toDynamicValue(
      (c) =>
        new ExecuteTask(
          c.get(TOKENS.Registry),
          c.get(TOKENS.Stores).tasks,
          c.get(TOKENS.UnitOfWork),
          c.get(TOKENS.BlobStore),
          c.get(TOKENS.Clock),
          c.get(TOKENS.Logger),
          c.get(TOKENS.PriceBook),
          c.get(TOKENS.CallLimiter),
          c.get(TOKENS.InflightCalls),
          c.get(TOKENS.ExecutionOptions),
          c.get(TOKENS.TaskCompletion),
          c.get(TOKENS.Telemetry),
        ),
    )
    .inSingletonScope();
  bind(TOKENS.Catalog).toDynamicValue((c) => new CatalogService(c.get(TOKENS.Registry), c.get(TOKENS.PriceBook))).inSingletonScope();
  bind(TOKENS.ManageKeys)
    .toDynamicValue((c) => new ManageKeys(c.get(TOKENS.Stores).keys, c.get(TOKENS.UnitOfWork), c.get(TOKENS.Ids), c.get(TOKENS.Scheduling)))
    .inSingletonScope();
  bind(TOKENS.Authenticate).toDynamicValue((c) => new Authenticate(c.get(TOKENS.Stores).keys, c.get(TOKENS.Clock))).inSingletonScope();
  bind(TOKENS.Billing)
    .toDynamicValue(
      (c) => new BillingService(c.get(TOKENS.Stores).ledger, c.get(TOKENS.Stores).alerts, c.get(TOKENS.UnitOfWork), c.get(TOKENS.PaymentProcessor), c.get(TOKENS.Ids)),
    )
    .inSingletonScope();
  bind(TOKENS.Admin).toDynamicValue((c) => new AdminService(c.get(TOKENS.UnitOfWork), c.get(TOKENS.Ids))).inSingletonScope();
  bind(TOKENS.ReceiveWebhook)
    .toDynamicValue((c) => new ReceiveWebhook(c.get(TOKENS.Registry), c.get(TOKENS.Stores).tasks, c.get(TOKENS.UnitOfWork), c.get(TOKENS.Logger)))
    .inSingletonScope();
  bind(TOKENS.SweepTasks)
    .toDynamicValue(
      (c) =>
        new SweepTasks(
          c.get(TOKENS.Stores).tasks,
          c.get(TOKENS.UnitOfWork),
          c.get(TOKENS.FailTask),
          c.get(TOKENS.Scheduling),
          c.get(TOKENS.ExecutionOptions).deadlineMs,
          c.get(TOKENS.Clock),
          c.get(TOKENS.Logger),
        ),
    )
    .inSingletonScope();
});

export interface GengateCoreConfig {
  readonly adapters: readonly ProviderAdapter[];
  /** Stores outside any transaction (each call commits on its own). */
  readonly stores: TransactionScope;
  readonly unitOfWork: UnitOfWork;
  /** Writes accepted submissions; default: over the unit of work (the PostgreSQL host binds a one-round-trip one). */
  readonly taskIntake?: TaskIntake;
  /** Commits successes; default: over the unit of work (the PostgreSQL host binds a one-round-trip one). */
  readonly taskCompletion?: TaskCompletion;
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
}

/** The use cases an HTTP layer or worker calls. */
export interface Gengate {
  readonly container: Container;
  readonly registry: ModelRegistry;
  readonly submitRun: SubmitRun;
  readonly getTask: GetTask;
  readonly listTasks: ListTasks;
  readonly quoteRun: QuoteRun;
  readonly executeTask: ExecuteTask;
  readonly failTask: FailTask;
  readonly cancelTask: CancelTask;
  readonly catalog: CatalogService;
  readonly keys: ManageKeys;
  readonly authenticate: Authenticate;
  readonly billing: BillingService;
  readonly admin: AdminService;
  readonly receiveWebhook: ReceiveWebhook;
  readonly sweepTasks: SweepTasks;
  readonly inflight: InflightCalls;
  readonly prices: PriceBook;
  readonly logger: Logger;
}

/** Builds the container from the given ports and resolves the use cases. */
export function createGengate(config: GengateCoreConfig): Gengate {
  const container = new Container();
  const scheduling: SchedulingOptions = {
    ...DEFAULT_SCHEDULING,
    ...config.scheduling,
    maxRunningPerUser: { ...DEFAULT_SCHEDULING.maxRunningPerUser, ...config.scheduling?.maxRunningPerUser },
  };
  const fetchImpl = config.execution?.fetch ?? globalThis.fetch;
  const execution: ExecuteTaskOptions = {
    deadlineMs: { ...DEFAULT_DEADLINES_MS, ...config.execution?.deadlineMs },
    fetch: fetchImpl,
    maxResultBytes: { ...DEFAULT_MAX_RESULT_BYTES, ...config.execution?.maxResultBytes },
    scheduling,
    secrets: config.execution?.secrets ?? [],
    readInput: config.execution?.readInput ?? fetchInput(fetchImpl),
    webhookUrl: config.execution?.webhookUrl ?? (() => null),
  };
  container.bind(TOKENS.Adapters).toConstantValue(config.adapters);
  container.bind(TOKENS.Stores).toConstantValue(config.stores);
  container.bind(TOKENS.UnitOfWork).toConstantValue(config.unitOfWork);
  container.bind(TOKENS.TaskIntake).toConstantValue(config.taskIntake ?? new UnitOfWorkTaskIntake(config.unitOfWork));
  container.bind(TOKENS.TaskCompletion).toConstantValue(config.taskCompletion ?? new UnitOfWorkTaskCompletion(config.unitOfWork));
  container.bind(TOKENS.BlobStore).toConstantValue(config.blobStore);
  container.bind(TOKENS.ResultUrls).toConstantValue(config.resultUrls);
  container.bind(TOKENS.PaymentProcessor).toConstantValue(config.paymentProcessor);
  container.bind(TOKENS.Logger).toConstantValue(config.logger ?? silentLogger);
  container.bind(TOKENS.Clock).toConstantValue(config.clock ?? { now: () => new Date() });
  container.bind(TOKENS.Ids).toConstantValue(config.ids ?? { uuid: () => randomUUID() });
  container.bind(TOKENS.ExecutionOptions).toConstantValue(execution);
  container.bind(TOKENS.Scheduling).toConstantValue(scheduling);
  container.bind(TOKENS.PriceBook).toConstantValue(new PriceBook(config.markup ?? NO_MARKUP));
  container.bind(TOKENS.CallLimiter).toConstantValue(config.callLimiter ?? UNLIMITED_CALLS);
  container.bind(TOKENS.AllowPrivateInputs).toConstantValue(config.allowPrivateInputs ?? false);
  container.bind(TOKENS.Telemetry).toConstantValue(config.telemetry ?? NO_TELEMETRY);
  container.bind(TOKENS.SubmissionGate).toConstantValue(config.submissionGate ?? OPEN_GATE);
  container.load(coreModule);
  return {
    container,
    registry: container.get(TOKENS.Registry),
    submitRun: container.get(TOKENS.SubmitRun),
    getTask: container.get(TOKENS.GetTask),
    listTasks: container.get(TOKENS.ListTasks),
    quoteRun: container.get(TOKENS.QuoteRun),
    executeTask: container.get(TOKENS.ExecuteTask),
    failTask: container.get(TOKENS.FailTask),
    cancelTask: container.get(TOKENS.CancelTask),
    catalog: container.get(TOKENS.Catalog),
    keys: container.get(TOKENS.ManageKeys),
    authenticate: container.get(TOKENS.Authenticate),
    billing: container.get(TOKENS.Billing),
    admin: container.get(TOKENS.Admin),
    receiveWebhook: container.get(TOKENS.ReceiveWebhook),
    sweepTasks: container.get(TOKENS.SweepTasks),
    inflight: container.get(TOKENS.InflightCalls),
    prices: container.get(TOKENS.PriceBook),
    logger: container.get(TOKENS.Logger),
  };
}
