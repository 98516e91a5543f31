import type { ModelRegistry } from '../catalog/model-registry.js';
import type { InflightCalls } from '../execution/inflight-calls.js';
import type { PriceBook } from '../pricing/price-book.js';
import type { RoutePlanner } from '../routing/route-planner.js';
import { TOKENS as PORT_AND_SETTING_TOKENS, tokenFor as token } from '../ports/tokens.js';
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
import type { QuoteRun } from '../services/quote-run.js';
import type { ReceiveWebhook } from '../services/receive-webhook.js';
import type { RunInline } from '../services/run-inline.js';
import type { SubmitRun } from '../services/submit-run.js';
import type { SweepTasks } from '../services/sweep-tasks.js';
import type { UsageReport } from '../services/usage-report.js';

/**
 * Injection tokens, in three kinds (the lists below name each token's kind; a test checks every token is
 * in one):
 * - ports: what an embedder binds (or the host binds for it), each an interface of `ports/`; every use
 *   case takes them with `@inject(TOKENS.X)`, so a rebinding before the first resolve is what they all get;
 * - settings: plain values read from the configuration;
 * - use cases: the classes of `services/` (and the catalog, prices and in-flight calls), bound by the core module.
 *
 * The ports and settings are defined low, in `ports/tokens.ts`, so that the injectables import them from
 * there (an import of this file from below `di/` would run upward and make a circle through the use-case
 * types). A use case that another injectable needs is injected by its class (`@inject(FailTask)`); the core
 * module binds that class to the service of its public token here, so a rebinding of `TOKENS.FailTask` is
 * still what every dependant receives.
 */
export const TOKENS = {
  ...PORT_AND_SETTING_TOKENS,
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
  ManageOrganizations: token<ManageOrganizations>('ManageOrganizations'),
  Authenticate: token<Authenticate>('Authenticate'),
  Billing: token<BillingService>('Billing'),
  Admin: token<AdminService>('Admin'),
  ReceiveWebhook: token<ReceiveWebhook>('ReceiveWebhook'),
  SweepTasks: token<SweepTasks>('SweepTasks'),
  ListTasks: token<ListTasks>('ListTasks'),
  QuoteRun: token<QuoteRun>('QuoteRun'),
  UsageReport: token<UsageReport>('UsageReport'),
  RoutePlanner: token<RoutePlanner>('RoutePlanner'),
  CallerRoles: token<CallerRoles>('CallerRoles'),
} as const;

export type TokenName = keyof typeof TOKENS;

/** The tokens an embedder may rebind to replace an implementation (a test rebinds each of them). */
export const PORT_TOKENS = [
  'Adapters', 'Stores', 'TaskStore', 'KeyStore', 'Ledger', 'AlertStore', 'UnitOfWork', 'TaskIntake', 'TaskCompletion', 'TaskPoll',
  'BlobStore', 'ResultUrls', 'PaymentProcessor', 'Logger', 'Clock', 'Ids', 'CallLimiter', 'Telemetry', 'SubmissionGate', 'RouteHealth',
  'UsageReader', 'OrganizationStore', 'InvitationMailer',
] as const satisfies readonly TokenName[];

/** Values from the configuration. */
export const SETTING_TOKENS = ['ExecutionOptions', 'DeadlinesMs', 'Scheduling', 'Markup', 'AllowPrivateInputs', 'ProviderOf', 'RoutedModels', 'Random'] as const satisfies readonly TokenName[];

/** What the core module builds (classes with `@injectable`). */
export const USE_CASE_TOKENS = [
  'Registry', 'PriceBook', 'InflightCalls', 'SubmitRun', 'RunInline', 'GetTask', 'ExecuteTask', 'FailTask', 'CancelTask', 'Catalog',
  'ManageKeys', 'Authenticate', 'Billing', 'Admin', 'ReceiveWebhook', 'SweepTasks', 'ListTasks', 'QuoteRun', 'RoutePlanner',
  'UsageReport', 'ManageOrganizations', 'CallerRoles',
] as const satisfies readonly TokenName[];
