import type { ServiceIdentifier } from 'inversify';
import type { ModelRegistry } from '../catalog/model-registry.js';
import type { BlobStore, ResultUrlResolver } from '../ports/blob-store.js';
import type { PaymentProcessor } from '../ports/payment-processor.js';
import type { ProviderAdapter } from '../ports/provider-adapter.js';
import type { Clock, IdGenerator, Logger } from '../ports/system.js';
import type { TransactionScope, UnitOfWork } from '../ports/stores.js';
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

/** Injection tokens: ports an embedder binds, and the use cases the core module provides. */
export const TOKENS = {
  Adapters: token<readonly ProviderAdapter[]>('Adapters'),
  Stores: token<TransactionScope>('Stores'),
  UnitOfWork: token<UnitOfWork>('UnitOfWork'),
  TaskIntake: token<TaskIntake>('TaskIntake'),
  TaskCompletion: token<TaskCompletion>('TaskCompletion'),
  BlobStore: token<BlobStore>('BlobStore'),
  ResultUrls: token<ResultUrlResolver>('ResultUrls'),
  PaymentProcessor: token<PaymentProcessor>('PaymentProcessor'),
  Logger: token<Logger>('Logger'),
  Clock: token<Clock>('Clock'),
  Ids: token<IdGenerator>('Ids'),
  ExecutionOptions: token<ExecuteTaskOptions>('ExecutionOptions'),
  Scheduling: token<SchedulingOptions>('Scheduling'),
  PriceBook: token<PriceBook>('PriceBook'),
  CallLimiter: token<ProviderCallLimiter>('CallLimiter'),
  InflightCalls: token<InflightCalls>('InflightCalls'),
  AllowPrivateInputs: token<boolean>('AllowPrivateInputs'),
  Telemetry: token<Telemetry>('Telemetry'),
  SubmissionGate: token<SubmissionGate>('SubmissionGate'),
  Registry: token<ModelRegistry>('Registry'),
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
