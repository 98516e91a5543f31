import { ContainerModule } from 'inversify';
import { ModelRegistry } from '../catalog/model-registry.js';
import { InflightCalls } from '../execution/inflight-calls.js';
import { UnitOfWorkTaskCompletion } from '../execution/unit-of-work-task-completion.js';
import { PriceBook } from '../pricing/price-book.js';
import { RoutePlanner } from '../routing/route-planner.js';
import type { TransactionScope } from '../ports/stores.js';
import { StoreTaskPoll } from '../run/store-task-poll.js';
import { UnitOfWorkTaskIntake } from '../run/unit-of-work-task-intake.js';
import { AdminService } from '../services/admin.js';
import { Authenticate } from '../services/authenticate.js';
import { BillingService } from '../services/billing.js';
import { UsageReport } from '../services/usage-report.js';
import { CallerRoles } from '../services/caller-roles.js';
import { CancelTask } from '../services/cancel-task.js';
import { CatalogService } from '../services/catalog.js';
import { ExecuteTask } from '../services/execute-task.js';
import { FailTask } from '../services/fail-task.js';
import { GetTask } from '../services/get-task.js';
import { ListTasks } from '../services/list-tasks.js';
import { ManageKeys } from '../services/manage-keys.js';
import { ManageOrganizations } from '../services/organizations/manage-organizations.js';
import { QuoteRun } from '../services/quote-run.js';
import { ReceiveWebhook } from '../services/receive-webhook.js';
import { RunInline } from '../services/run-inline.js';
import { SubmitRun } from '../services/submit-run.js';
import { SweepTasks } from '../services/sweep-tasks.js';
import type { ExecuteTaskOptions } from '../execution/execution-options.js';
import { TOKENS } from './tokens.js';

/**
 * The use cases (`@injectable` classes whose every constructor parameter names its token), bound to their
 * tokens; and the defaults derived from other bindings (each store of `Stores`, the deadlines of the
 * execution options, the provider of a model, the intake and completion over the unit of work).
 *
 * Lifetimes: everything here is a singleton (`inSingletonScope`), built on its first resolve and then
 * shared: the use cases hold no per-request state (a request's caller is an argument of each call), and
 * InflightCalls must be one per process (cancellation finds a running call there). Rebind a token before
 * the first resolve (see `createGengate`'s `configure`) and every dependant gets the rebound one: ports and
 * settings through their tokens, the use cases other injectables need through their class, bound below to
 * the service of their token.
 */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Registry).to(ModelRegistry).inSingletonScope();
  bind(TOKENS.PriceBook).to(PriceBook).inSingletonScope();
  bind(TOKENS.RoutePlanner).to(RoutePlanner).inSingletonScope();
  bind(TOKENS.InflightCalls).to(InflightCalls).inSingletonScope();
  bind(TOKENS.SubmitRun).to(SubmitRun).inSingletonScope();
  bind(TOKENS.RunInline).to(RunInline).inSingletonScope();
  bind(TOKENS.GetTask).to(GetTask).inSingletonScope();
  bind(TOKENS.ListTasks).to(ListTasks).inSingletonScope();
  bind(TOKENS.QuoteRun).to(QuoteRun).inSingletonScope();
  bind(TOKENS.FailTask).to(FailTask).inSingletonScope();
  bind(TOKENS.CancelTask).to(CancelTask).inSingletonScope();
  bind(TOKENS.ExecuteTask).to(ExecuteTask).inSingletonScope();
  bind(TOKENS.Catalog).to(CatalogService).inSingletonScope();
  bind(TOKENS.ManageKeys).to(ManageKeys).inSingletonScope();
  bind(TOKENS.ManageOrganizations).to(ManageOrganizations).inSingletonScope();
  bind(TOKENS.Authenticate).to(Authenticate).inSingletonScope();
  bind(TOKENS.Billing).to(BillingService).inSingletonScope();
  bind(TOKENS.Admin).to(AdminService).inSingletonScope();
  bind(TOKENS.ReceiveWebhook).to(ReceiveWebhook).inSingletonScope();
  bind(TOKENS.SweepTasks).to(SweepTasks).inSingletonScope();
  bind(TOKENS.UsageReport).to(UsageReport).inSingletonScope();
  bind(TOKENS.CallerRoles).to(CallerRoles).inSingletonScope();

  // The core classes other injectables take by their class (`@inject(FailTask)`: their files cannot import
  // this layer's tokens) are the service of the public token, so a rebinding of `TOKENS.FailTask` is what
  // every dependant receives. (`.to(FailTask)` above builds the class itself; it does not resolve the class
  // identifier, so this does not loop.)
  bind(ModelRegistry).toService(TOKENS.Registry);
  bind(PriceBook).toService(TOKENS.PriceBook);
  bind(RoutePlanner).toService(TOKENS.RoutePlanner);
  bind(InflightCalls).toService(TOKENS.InflightCalls);
  bind(FailTask).toService(TOKENS.FailTask);
  bind(GetTask).toService(TOKENS.GetTask);
  bind(CallerRoles).toService(TOKENS.CallerRoles);

  // Derived defaults: values read from other bindings, so that rebinding the source moves them too.
  const store = <K extends 'tasks' | 'keys' | 'ledger' | 'alerts'>(key: K) => (stores: TransactionScope): TransactionScope[K] => stores[key];
  bind(TOKENS.TaskStore).toResolvedValue(store('tasks'), [TOKENS.Stores]).inSingletonScope();
  bind(TOKENS.KeyStore).toResolvedValue(store('keys'), [TOKENS.Stores]).inSingletonScope();
  bind(TOKENS.Ledger).toResolvedValue(store('ledger'), [TOKENS.Stores]).inSingletonScope();
  bind(TOKENS.AlertStore).toResolvedValue(store('alerts'), [TOKENS.Stores]).inSingletonScope();
  bind(TOKENS.DeadlinesMs).toResolvedValue((execution: ExecuteTaskOptions) => execution.deadlineMs, [TOKENS.ExecutionOptions]).inSingletonScope();
  bind(TOKENS.ProviderOf)
    .toResolvedValue((registry: ModelRegistry) => (modelId: string) => registry.find(modelId)?.provider, [TOKENS.Registry])
    .inSingletonScope();
});

/**
 * The intake and completion over the unit of work, and the poll over the stores: the defaults when the
 * configuration gives none (the PostgreSQL host binds one-round-trip ones).
 */
export const unitOfWorkTaskWritesModule = new ContainerModule(({ bind, isBound }) => {
  if (!isBound(TOKENS.TaskIntake)) bind(TOKENS.TaskIntake).to(UnitOfWorkTaskIntake).inSingletonScope();
  if (!isBound(TOKENS.TaskCompletion)) bind(TOKENS.TaskCompletion).to(UnitOfWorkTaskCompletion).inSingletonScope();
  if (!isBound(TOKENS.TaskPoll)) bind(TOKENS.TaskPoll).to(StoreTaskPoll).inSingletonScope();
});
