import type { ServiceIdentifier } from 'inversify';
import type { Modality } from '../model/modality.js';
import type { RoutedModelDeclaration } from '../model/routing.js';
import type { BlobStore, ResultUrlResolver } from './blob-store.js';
import type { ProviderCallLimiter } from './call-limiter.js';
import type { OrganizationStore } from './organization-store.js';
import type { InvitationMailer } from './invitation-mailer.js';
import type { RouteHealth } from './route-health.js';
import type { PaymentProcessor } from './payment-processor.js';
import type { AcceptedProviderAdapter } from './provider-adapter.js';
import type { ExecuteTaskOptions, MarkupPolicy, SchedulingOptions } from './settings.js';
import type { AlertStore, BillingLedger, KeyStore, TaskStore, TransactionScope, UnitOfWork } from './stores.js';
import type { SubmissionGate } from './submission-gate.js';
import type { Clock, IdGenerator, Logger } from './system.js';
import type { TaskCompletion } from './task-completion.js';
import type { TaskIntake } from './task-intake.js';
import type { TaskPoll } from './task-poll.js';
import type { Telemetry } from './telemetry.js';
import type { UsageReader } from './usage-reader.js';

/** A gengate token: a registered symbol, so two copies of the core share it. */
export const tokenFor = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`gengate.${name}`);
const token = tokenFor;

/**
 * The injection tokens of the ports and settings: the low half of the public `TOKENS` (`di/tokens.ts`
 * spreads these into it, beside the use-case tokens). They live here, typed only by port interfaces and
 * settings types, so that every injectable of any layer may `@inject(TOKENS.X)` them without importing
 * the composition root. A core class that another injectable depends on (ModelRegistry, PriceBook,
 * InflightCalls, FailTask, GetTask) is injected by its class (`@inject(FailTask)`), which `di/` binds to
 * the public use-case token.
 */
export const TOKENS = {
  // Ports.
  /** The adapters to serve, of any accepted contract version (the registry adapts a v3 one). */
  Adapters: token<readonly AcceptedProviderAdapter[]>('Adapters'),
  Stores: token<TransactionScope>('Stores'),
  /** The stores of `Stores` outside a transaction, one token each (default: read from `Stores`). */
  TaskStore: token<TaskStore>('TaskStore'),
  KeyStore: token<KeyStore>('KeyStore'),
  Ledger: token<BillingLedger>('Ledger'),
  AlertStore: token<AlertStore>('AlertStore'),
  UnitOfWork: token<UnitOfWork>('UnitOfWork'),
  TaskIntake: token<TaskIntake>('TaskIntake'),
  TaskCompletion: token<TaskCompletion>('TaskCompletion'),
  TaskPoll: token<TaskPoll>('TaskPoll'),
  BlobStore: token<BlobStore>('BlobStore'),
  ResultUrls: token<ResultUrlResolver>('ResultUrls'),
  PaymentProcessor: token<PaymentProcessor>('PaymentProcessor'),
  Logger: token<Logger>('Logger'),
  Clock: token<Clock>('Clock'),
  Ids: token<IdGenerator>('Ids'),
  CallLimiter: token<ProviderCallLimiter>('CallLimiter'),
  Telemetry: token<Telemetry>('Telemetry'),
  SubmissionGate: token<SubmissionGate>('SubmissionGate'),
  /** The circuit breakers of the routes, shared by every process (default: every route admitted). */
  RouteHealth: token<RouteHealth>('RouteHealth'),
  /** Organizations, members and invitations (docs/organizations.md). */
  OrganizationStore: token<OrganizationStore>('OrganizationStore'),
  /** Mails invitation links (default: none, inviting answers 503). */
  InvitationMailer: token<InvitationMailer>('InvitationMailer'),
  /** The usage rollups (default: none, reading usage answers 503). */
  UsageReader: token<UsageReader>('UsageReader'),
  /** The random source of the routes' weighted choice (default Math.random; tests bind a seeded one). */
  Random: token<() => number>('Random'),
  // Settings.
  /**
   * The routed models (one id, several provider routes, a policy): the adapters' default families and the
   * operator's declarations, validated by `routedModelDeclarationSchema` (default none).
   */
  RoutedModels: token<readonly RoutedModelDeclaration[]>('RoutedModels'),
  ExecutionOptions: token<ExecuteTaskOptions>('ExecutionOptions'),
  /** The generation deadline per modality (default: read from `ExecutionOptions`). */
  DeadlinesMs: token<Readonly<Record<Modality, number>>>('DeadlinesMs'),
  Scheduling: token<SchedulingOptions>('Scheduling'),
  Markup: token<MarkupPolicy>('Markup'),
  AllowPrivateInputs: token<boolean>('AllowPrivateInputs'),
  /** The provider serving a model id, for metrics (default: read from the registry). */
  ProviderOf: token<(modelId: string) => string | undefined>('ProviderOf'),
} as const;
