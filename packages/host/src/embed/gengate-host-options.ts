import type { HostTracing } from '../tracing/host-tracing.js';
import type { AuthContext, BlobStore, CreateGengateOptions, KeyRateLimiter, Mailer, PaymentProcessor, AcceptedProviderAdapter } from '@gengate/core';
import type { Request } from 'express';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { FileDeliveryOptions } from '../http/routes/files-delivery.js';
import type { KeyCacheOptions } from '../postgres/cached-key-store.js';
import type { StoreReplacements } from '../postgres/pg-unit-of-work.js';
import type { GengateHostSettingsInput } from './host-settings.js';

/** Stripe Checkout for top-ups: the Stripe SDK is imported only when this is given. */
export interface StripeHostOptions {
  readonly secretKey: string;
  readonly webhookSecret: string;
  /** Base URL of the Stripe API; only for tests against a fake. */
  readonly apiUrl?: string | null;
  /** Where Stripe sends the payer after paying; default `<apiUrl>/billing/balance?checkout=success`. */
  readonly successUrl?: string | (() => string) | null;
  /** Where Stripe sends the payer after cancelling; default `<apiUrl>/billing/balance?checkout=cancelled`. */
  readonly cancelUrl?: string | (() => string) | null;
}

export interface GengateHostOptions {
  /**
   * The PostgreSQL database: a URL (gengate opens and closes its own pool), or your own pool (gengate
   * never ends it; its job queue and LISTEN connection use the pool's connection settings).
   */
  readonly database: { readonly url: string; readonly poolMax?: number } | { readonly pool: pg.Pool };
  /** The PostgreSQL schema of gengate's tables (created by migrate()); default `gengate`. */
  readonly schema?: string;
  /** Stores to use instead of gengate's own, in every scope (see createPgStores and docs/architecture.md, "SQL and the schema"). */
  readonly replaceStores?: StoreReplacements;
  /**
   * How long this process may answer submissions and polls from a cached API key row (their statements
   * re-check revocation; limit and whitelist changes made by another process show within it); default
   * `{ ttlMs: 2000 }`, `{ ttlMs: 0 }` for none. See docs/api.md, `PUT /api-keys/{id}`.
   */
  readonly keyCache?: KeyCacheOptions;
  /** The provider adapters to serve (e.g. createSandboxAdapter() from @gengate/adapters). */
  readonly adapters: readonly AcceptedProviderAdapter[];
  /** A pino logger; default: silent. */
  readonly logger?: Logger;
  /** Where result files are kept; default a LocalBlobStore under `filesDir` (an S3BlobStore from `@gengate/host/s3` for several machines). */
  readonly blobStore?: BlobStore;
  /** How result files are served: streamed (default) or a 302 to the blob store's presigned URL. */
  readonly fileDelivery?: FileDeliveryOptions;
  /** The directory of the default LocalBlobStore; default `.gengate/files` under the working directory. */
  readonly filesDir?: string;
  /** How credits are bought; default ManualPaymentProcessor (an operator completes top-ups). */
  readonly paymentProcessor?: PaymentProcessor;
  /** Stripe Checkout instead (overrides paymentProcessor; mounts the signed webhook on the router). */
  readonly stripe?: StripeHostOptions;
  /** How balance-alert mails are sent; default SMTP when `smtp` is given, else written to the log. */
  readonly mailer?: Mailer;
  /** SMTP for the default mailer (nodemailer is imported only when a mail is sent). */
  readonly smtp?: { readonly url: string; readonly from: string };
  /**
   * Your own sign-in: asked before the API-key check. Return `{ userId, apiKeyId: null }` to act as that
   * gengate user, or null to fall through to `Authorization: Bearer <key>`. Accept only requests a
   * browser cannot be tricked into sending (a session cookie together with a CSRF header or SameSite=Strict).
   */
  readonly authenticate?: (req: Request) => Promise<AuthContext | null>;
  /**
   * How a person passes `authenticate`, named in the 401 of a request that has neither your session nor
   * an API key (`Not signed in: <signInHint>, or send an API key ...`), e.g. `sign in at /login`; default `sign in`.
   */
  readonly signInHint?: string;
  /**
   * With settings.fileAccess `session`: authenticates result file downloads (default `authenticate`).
   * A browser loads <img>/<video> with its cookies but without custom headers, and a download changes
   * nothing, so this one may accept your SameSite session cookie alone (no CSRF header).
   */
  readonly authenticateFiles?: (req: Request) => Promise<AuthContext | null>;
  /**
   * The origin (and any path prefix) clients reach your app at, e.g. `https://app.example.com`; result
   * URLs, provider webhook URLs and Stripe return URLs are built from it plus `mountPath`. A function
   * is read each time (for a port known only after listening). Default '' (relative result URLs).
   */
  readonly publicUrl?: string | (() => string);
  /** Where you mount `router` under the public URL; default `/api/v1`. */
  readonly mountPath?: string;
  /**
   * Builds `openaiRouter`, the OpenAI-compatible surface (chat completions, models) and Anthropic's Messages API (docs/anthropic-compatible.md) to mount at `/v1`:
   * `true`, or its options (operator model aliases, keep-alive interval). Default off.
   */
  readonly openai?: boolean | { readonly modelAliases?: Readonly<Record<string, string>>; readonly keepAliveMs?: number; readonly revocationCheckMs?: number };
  /** Counts per-key rate limits; default in PostgreSQL, shared by every process. */
  readonly rateLimiter?: KeyRateLimiter;
  /** Largest accepted JSON body; default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Secret values (provider keys) kept out of task messages and logs. */
  readonly secrets?: readonly string[];
  /** Deadlines, scheduling, concurrency, callbacks, downloads, back-pressure, retention, shutdown grace: see DEFAULT_HOST_SETTINGS. */
  readonly settings?: GengateHostSettingsInput;
  /**
   * Rebind any port (core's PORT_TOKENS, the host's HOST_PORT_TOKENS: `HOST_TOKENS.Mailer`, `KeyRateLimiter`,
   * `Callbacks`) or use case before anything is resolved (`container.rebind(TOKENS.Clock)...`): that binding
   * is what runs, for the use cases, routes and workers that depend on it too (the host resolves them all
   * once, right after this call; see hostModule and postgresStoresModule for what is bound).
   */
  readonly configure?: CreateGengateOptions['configure'];
  /**
   * OpenTelemetry traces (docs/observability.md): `await startTracing()` (from the standard OTEL_*
   * variables; null when they leave tracing off) or `await loadTracing()` (on a tracer provider of your own).
   * Absent or null: no span is built and no OpenTelemetry package is loaded.
   */
  readonly tracing?: HostTracing | null;
  /** The address settings.ops.metricsPort listens on; default 127.0.0.1. */
  readonly metricsHost?: string;
}

/** Which workers startWorkers() runs; each defaults to true. */
export interface HostWorkerSelection {
  /** Generation and status-check jobs, with the listener that aborts upstream calls of tasks ended elsewhere. */
  readonly generation?: boolean;
  /** Callback deliveries. */
  readonly callbacks?: boolean;
  /** Balance-alert mails. */
  readonly mail?: boolean;
  /** The periodic maintenance sweep. */
  readonly maintenance?: boolean;
}
