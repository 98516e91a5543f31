import type { HostTracing } from '../tracing/host-tracing.js';
import type { GengateUseCases, TokenName } from '@gengate/core';
import type { Router } from 'express';
import type { CallbackRepository } from '../callbacks/callback-repository.js';
import { HOST_TOKENS as LOW_HOST_TOKENS, hostToken } from '../host-tokens.js';
import type { OpenAIRouterOptions } from '../http/openai/create-openai-router.js';
import type { StripeWebhookOptions } from '../http/routes/stripe-webhook.js';
import type { Ops } from '../ops/start-ops.js';
import type { BossOptions } from '../postgres/boss-queues.js';
import type { ConnectionSettings } from '../postgres/connection-settings.js';
import { PG_TOKENS } from '../postgres/postgres-tokens.js';
import type { HostResultUrls } from '../storage/host-result-urls.js';
import type { GengateHostOptions, HostWorkerSelection } from './gengate-host-options.js';
import type { GengateHostSettings } from './host-settings.js';
import type { HostWorkers } from './start-host-workers.js';

/** Where the host is reached: the public URL (read each time), the router's mount path, and both together. */
export interface HostUrls {
  readonly publicUrl: () => string;
  readonly mountPath: string;
  readonly apiUrl: () => string;
}

/** What createGengateHost's options give the API router as they are (the embedder's seams and limits). */
export type HostRouterOptions = Pick<GengateHostOptions, 'authenticate' | 'authenticateFiles' | 'signInHint' | 'maxBodyBytes' | 'fileDelivery'>;

/** The OpenAI-compatible router's own options, or null when the host serves none. */
export type HostOpenAIOptions = Pick<OpenAIRouterOptions, 'modelAliases' | 'keepAliveMs' | 'revocationCheckMs'> | null;

/** Starts the queue workers of this process (the host's startWorkers()). */
export interface HostWorkerStarter {
  /** `tracing`: the host's traces (createGengateHost's `tracing` option); absent or null: no spans. */
  start(which: HostWorkerSelection, tracing?: HostTracing | null): Promise<HostWorkers>;
}

/**
 * The host's injection tokens, beside core's `TOKENS` (which the host also binds: the stores, unit of
 * work, intake, completion, blob store, result URLs, payment processor, call limiter, telemetry,
 * submission gate, logger). `HOST_PORT_TOKENS` names what an embedder may rebind in createGengateHost's
 * `configure`; the rest are configuration (constants from the options) and the host's own parts (the
 * routers, the workers, ops), each resolved once by createGengateHost.
 */
export const HOST_TOKENS = {
  ...LOW_HOST_TOKENS,
  ...PG_TOKENS,
  // Ports.
  /** Callback signing secrets and delivery attempts (PostgreSQL). */
  Callbacks: hostToken<CallbackRepository>('Callbacks'),
  // Configuration.
  Settings: hostToken<GengateHostSettings>('Settings'),
  Urls: hostToken<HostUrls>('Urls'),
  Connection: hostToken<ConnectionSettings>('Connection'),
  BossOptions: hostToken<BossOptions>('BossOptions'),
  RouterOptions: hostToken<HostRouterOptions>('RouterOptions'),
  OpenAIOptions: hostToken<HostOpenAIOptions>('OpenAIOptions'),
  /** Stripe's signed webhook, mounted on the router when Stripe sells the credits; null otherwise. */
  StripeWebhook: hostToken<StripeWebhookOptions | null>('StripeWebhook'),
  /** Secret values (provider keys) kept out of task messages and logs. */
  Secrets: hostToken<readonly string[]>('Secrets'),
  // The host's parts.
  /** Signs result URLs and checks them (TOKENS.ResultUrls is this, unless rebound). */
  ResultUrlSigning: hostToken<HostResultUrls>('ResultUrlSigning'),
  /** Metrics, health and back-pressure (TOKENS.Telemetry and TOKENS.SubmissionGate are its). */
  Ops: hostToken<Ops>('Ops'),
  /** Every use case and port the routers and workers receive, resolved from their tokens. */
  UseCases: hostToken<GengateUseCases>('UseCases'),
  /** The /api/v1 router. createGengateHost puts its start-up gate in its first layer when it is createGengateRouter's (without tracing), else in a router of its own in front. */
  ApiRouter: hostToken<Router>('ApiRouter'),
  /** The OpenAI-compatible router, or null. */
  OpenAIRouter: hostToken<Router | null>('OpenAIRouter'),
  Workers: hostToken<HostWorkerStarter>('Workers'),
} as const;

export type HostTokenName = keyof typeof HOST_TOKENS;

/** The host's own ports an embedder may rebind (a test rebinds each); core's `PORT_TOKENS` may be rebound too. */
export const HOST_PORT_TOKENS = ['Mailer', 'KeyRateLimiter', 'Callbacks'] as const satisfies readonly HostTokenName[];

/** Configuration: constants from createGengateHost's options (and values derived from them). */
export const HOST_SETTING_TOKENS = [
  'Pool', 'Schema', 'HostLogger', 'FilesDir', 'FileUrls', 'ProviderLimits', 'CallLeaseSeconds', 'StoreReplacements', 'BossSchema', 'Settings', 'Urls', 'Connection',
  'BossOptions', 'RouterOptions', 'OpenAIOptions', 'StripeWebhook', 'Secrets',
] as const satisfies readonly HostTokenName[];

/** The host's own parts, built from the ports and settings (rebinding them is possible, rarely needed). */
export const HOST_PART_TOKENS = ['Boss', 'WakeJobs', 'ResultUrlSigning', 'Ops', 'UseCases', 'ApiRouter', 'OpenAIRouter', 'Workers'] as const satisfies readonly HostTokenName[];

/** Core's ports the host binds (to PostgreSQL, its blob store, its ops...): rebind any of them in `configure`. */
export const HOST_BOUND_CORE_PORTS = [
  'Stores', 'UnitOfWork', 'TaskIntake', 'TaskCompletion', 'BlobStore', 'ResultUrls', 'PaymentProcessor', 'CallLimiter', 'Telemetry', 'SubmissionGate', 'Logger', 'RouteHealth',
] as const satisfies readonly TokenName[];
