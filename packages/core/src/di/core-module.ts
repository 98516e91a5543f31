import { ContainerModule } from 'inversify';
import { ModelRegistry } from '../catalog/model-registry.js';
import { InflightCalls } from '../execution/inflight-calls.js';
import { AdminService } from '../services/admin.js';
import { Authenticate } from '../services/authenticate.js';
import { BillingService } from '../services/billing.js';
import { CancelTask } from '../services/cancel-task.js';
import { CatalogService } from '../services/catalog.js';
import { ExecuteTask } from '../services/execute-task.js';
import { FailTask } from '../services/fail-task.js';
import { GetTask } from '../services/get-task.js';
import { ManageKeys } from '../services/manage-keys.js';
import { RunInline } from '../services/run-inline.js';
import { SubmitRun } from '../services/submit-run.js';
import { ReceiveWebhook } from '../services/receive-webhook.js';
import { SweepTasks } from '../services/sweep-tasks.js';
import { ListTasks } from '../services/list-tasks.js';
import { QuoteRun } from '../services/quote-run.js';
import { TOKENS } from './tokens.js';

/**
 * The use cases, built from the ports bound in the container (no decorators: works under any runner). Every
 * use case takes its collaborators from the container, so a rebinding of any token (a port, or a use case
 * such as FailTask) is what every dependant receives.
 */
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
  bind(TOKENS.RunInline)
    .toDynamicValue(
      (c) =>
        new RunInline(
          c.get(TOKENS.Registry),
          c.get(TOKENS.TaskIntake),
          c.get(TOKENS.Stores).tasks,
          c.get(TOKENS.Ids),
          c.get(TOKENS.Clock),
          c.get(TOKENS.Logger),
          c.get(TOKENS.PriceBook),
          c.get(TOKENS.ExecutionOptions),
          c.get(TOKENS.CallLimiter),
          c.get(TOKENS.InflightCalls),
          c.get(TOKENS.BlobStore),
          c.get(TOKENS.TaskCompletion),
          c.get(TOKENS.FailTask),
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
      return new FailTask(c.get(TOKENS.TaskCompletion), c.get(TOKENS.Scheduling), c.get(TOKENS.Telemetry), (id) => registry.find(id)?.provider);
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
          c.get(TOKENS.FailTask),
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
