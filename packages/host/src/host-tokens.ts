import type { KeyRateLimiter, Mailer, ProviderLimits } from '@gengate/core';
import type { ServiceIdentifier } from 'inversify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';

/** Where the router serves result files, and how their URLs are signed. */
export interface FileUrlSettings {
  /** The public URL clients reach the app at (read each time: it may be known only after listening). */
  readonly publicUrl: () => string;
  /** Where the router is mounted under it, e.g. `/api/v1`. */
  readonly mountPath: string;
  /** Sign each URL handed out (fileAccess `signed`), with a secret kept in the database. */
  readonly signed: boolean;
  /** How long a signed URL stays valid. */
  readonly ttlSeconds: number;
}

/** A host token: a registered symbol, so two copies of the host share it (as core's tokens are). */
export const hostToken = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`gengate.host.${name}`);

/**
 * The injection tokens of the host's ports and basic settings: the low half of the public `HOST_TOKENS`
 * (`embed/host-tokens.ts` spreads these into it), typed only by core's ports and the libraries' types, so
 * that an injectable of any host layer (a PostgreSQL store, the call limiter, the blob store) may
 * `@inject(HOST_TOKENS.X)` without importing the composition root. core's own ports (BlobStore,
 * CallLimiter, PaymentProcessor...) keep core's `TOKENS`.
 */
export const HOST_TOKENS = {
  /** The pool gengate's stores use (the embedder's, or one opened from the database URL). */
  Pool: hostToken<pg.Pool>('Pool'),
  /** gengate's PostgreSQL schema (the name runMigrations used). */
  Schema: hostToken<string>('Schema'),
  /** The job queue; null in a process that enqueues nothing (the admin CLI's createPgStores). */
  Boss: hostToken<PgBoss | null>('Boss'),
  /** The host's logger (pino); core's `TOKENS.Logger` is a request-scoped view of it. */
  HostLogger: hostToken<Logger>('HostLogger'),
  /** The directory of the default LocalBlobStore. */
  FilesDir: hostToken<string>('FilesDir'),
  /** Per-provider call limits (concurrent calls, calls per minute), read by the call limiter. */
  ProviderLimits: hostToken<(providerId: string) => ProviderLimits>('ProviderLimits'),
  /** How long a crashed worker's provider call lease outlives it; not bound by default (30 s). */
  CallLeaseSeconds: hostToken<number>('CallLeaseSeconds'),
  /** Sends balance-alert mails and dashboard sign-in links. */
  Mailer: hostToken<Mailer>('Mailer'),
  /** Where result files are served and whether their URLs are signed (HostResultUrls). */
  FileUrls: hostToken<FileUrlSettings>('FileUrls'),
  /** Counts per-key rate limits (default: in PostgreSQL, shared by every process). */
  KeyRateLimiter: hostToken<KeyRateLimiter>('KeyRateLimiter'),
} as const;
