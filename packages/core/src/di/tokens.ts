import type { ServiceIdentifier } from 'inversify';
import type { ModelRegistry } from '../catalog/model-registry.js';
import type { BlobStore, ResultUrlResolver } from '../ports/blob-store.js';
import type { PaymentProcessor } from '../ports/payment-processor.js';
import type { ProviderAdapter } from '../ports/provider-adapter.js';
import type { Clock, IdGenerator, Logger } from '../ports/system.js';
import type { AlertStore, BillingLedger, KeyStore, TaskStore, TransactionScope, UnitOfWork } from '../ports/stores.js';
import type { TaskIntake } from '../ports/task-intake.js';
import type { TaskCompletion } from '../ports/task-completion.js';
import type { SubmissionGate } from '../ports/submission-gate.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { AdminService } from '../services/admin.js';
import type { Authenticate } from '../services/authenticate.js';
import type { BillingService } from '../services/billing.js';
import type { CatalogService } from '../services/catalog.js';
import type { ExecuteTask, ExecuteTaskOptions } from '../services/execute-task.js';
import type { InflightCalls } from '../execution/inflight-calls.js';
import type { SchedulingOptions } from '../execution/scheduling.js';
import type { PriceBook } from '../pricing/price-book.js';
import type { ProviderCallLimiter } from '../ports/call-limiter.js';
import type { MarkupPolicy } from '../pricing/markup.js';
import type { Modality } from '../model/modality.js';
import type { CancelTask } from '../services/cancel-task.js';
import type { FailTask } from '../services/fail-task.js';
import type { GetTask } from '../services/get-task.js';
import type { ManageKeys } from '../services/manage-keys.js';
import type { RunInline } from '../services/run-inline.js';
import type { SubmitRun } from '../services/submit-run.js';
import type { ReceiveWebhook } from '../services/receive-webhook.js';
import type { SweepTasks } from '../services/sweep-tasks.js';
import type { ListTasks } from '../services/list-tasks.js';
import type { QuoteRun } from '../services/quote-run.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`gengate.${name}`);

/**
 * Injection tokens, in three kinds (the lists below name each token's kind; a test checks every token is
 * in one):
 * - ports: what an embedder binds (or the host binds for it), each an interface of `ports/`; every use
 *   case takes them with `@inject(TOKENS.X)`, so a rebinding before the first resolve is what they all get;
 * - settings: plain values read from the configuration;
 * - use cases: the classes of `services/` (and the catalog, prices and in-flight calls), bound by the core module.
 */
export const TOKENS = {
  // Ports.
  Adapters: token<readonly ProviderAdapter[]>('Adapters'),
  Stores: token<TransactionScope>('Stores'),
  /** The stores of `Stores` outside a transaction, one token each (default: read from `Stores`). */
  TaskStore: token<TaskStore>('TaskStore'),
  KeyStore: token<KeyStore>('KeyStore'),
  Ledger: token<BillingLedger>('Ledger'),
  AlertStore: token<AlertStore>('AlertStore'),
  UnitOfWork: token<UnitOfWork>('UnitOfWork'),
  TaskIntake: token<TaskIntake>('TaskIntake'),
  TaskCompletion: token<TaskCompletion>('TaskCompletion'),
  BlobStore: token<BlobStore>('BlobStore'),
  ResultUrls: token<ResultUrlResolver>('ResultUrls'),
  PaymentProcessor: token<PaymentProcessor>('PaymentProcessor'),
  Logger: token<Logger>('Logger'),
  Clock: token<Clock>('Clock'),
  Ids: token<IdGenerator>('Ids'),
  CallLimiter: token<ProviderCallLimiter>('CallLimiter'),
  Telemetry: token<Telemetry>('Telemetry'),
  SubmissionGate: token<SubmissionGate>('SubmissionGate'),
  // Settings.
  ExecutionOptions: token<ExecuteTaskOptions>('ExecutionOptions'),
  /** The generation deadline per modality (default: read from `ExecutionOptions`). */
  DeadlinesMs: token<Readonly<Record<Modality, number>>>('DeadlinesMs'),
  Scheduling: token<SchedulingOptions>('Scheduling'),
  Markup: token<MarkupPolicy>('Markup'),
  AllowPrivateInputs: token<boolean>('AllowPrivateInputs'),
  /** The provider serving a model id, for metrics (default: read from the registry). */
  ProviderOf: token<(modelId: string) => string | undefined>('ProviderOf'),
  // Use cases.
  Registry: token<ModelRegistry>('Registry'),
  PriceBook: token<PriceBook>('PriceBook'),
  InflightCalls: token<InflightCalls>('InflightCalls'),
  SubmitRun: token<SubmitRun>('SubmitRun'),
  RunInline: token<RunInline>('RunInline'),
  GetTask: token<GetTask>('GetTask'),
  ExecuteTask: token<ExecuteTask>('ExecuteTask'),
  FailTask: token<FailTask>('FailTask'),
  CancelTask: token<CancelTask>('CancelTask'),
  Catalog: token<CatalogService>('Catalog'),
  ManageKeys: token<ManageKeys>('ManageKeys'),
  Authenticate: token<Authenticate>('Authenticate'),
  Billing: token<BillingService>('Billing'),
  Admin: token<AdminService>('Admin'),
  ReceiveWebhook: token<ReceiveWebhook>('ReceiveWebhook'),
  SweepTasks: token<SweepTasks>('SweepTasks'),
  ListTasks: token<ListTasks>('ListTasks'),
  QuoteRun: token<QuoteRun>('QuoteRun'),
} as const;

export type TokenName = keyof typeof TOKENS;

/** The tokens an embedder may rebind to replace an implementation (a test rebinds each of them). */
export const PORT_TOKENS = [
  'Adapters', 'Stores', 'TaskStore', 'KeyStore', 'Ledger', 'AlertStore', 'UnitOfWork', 'TaskIntake', 'TaskCompletion',
  'BlobStore', 'ResultUrls', 'PaymentProcessor', 'Logger', 'Clock', 'Ids', 'CallLimiter', 'Telemetry', 'SubmissionGate',
] as const satisfies readonly TokenName[];

/** Values from the configuration. */
export const SETTING_TOKENS = ['ExecutionOptions', 'DeadlinesMs', 'Scheduling', 'Markup', 'AllowPrivateInputs', 'ProviderOf'] as const satisfies readonly TokenName[];

/** What the core module builds (classes with `@injectable`). */
export const USE_CASE_TOKENS = [
  'Registry', 'PriceBook', 'InflightCalls', 'SubmitRun', 'RunInline', 'GetTask', 'ExecuteTask', 'FailTask', 'CancelTask', 'Catalog',
  'ManageKeys', 'Authenticate', 'Billing', 'Admin', 'ReceiveWebhook', 'SweepTasks', 'ListTasks', 'QuoteRun',
] as const satisfies readonly TokenName[];
