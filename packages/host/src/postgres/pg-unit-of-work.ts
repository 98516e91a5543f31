import { TOKENS, type OrganizationStore, type TaskCompletion, type TaskIntake, type TaskPoll, type TransactionScope, type UnitOfWork, type UsageReader } from '@gengate/core';
import { Container } from 'inversify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { postgresStoresModule } from './postgres-stores-module.js';
import type { KeyCacheOptions } from './cached-key-store.js';
import type { StoreReplacements } from './store-replacements.js';

export type { StoreReplacement, StoreReplacements } from './store-replacements.js';

export interface PgStoresOptions {
  /** gengate's schema: the name runMigrations used. */
  readonly schema: string;
  /** Stores to use instead of gengate's own (see StoreReplacement and docs/architecture.md, "SQL and the schema"). */
  readonly replace?: StoreReplacements;
  /**
   * The cache of gengate's own key store (CachedKeyStore): how long a key looked up by its hash answers
   * the requests that accept a cached key (reads and submissions); default 2 s, `{ ttlMs: 0 }` for none.
   * A replaced key store is not cached.
   */
  readonly keyCache?: KeyCacheOptions;
}

/**
 * The stores on PostgreSQL, in gengate's schema, without a host: `stores` autocommits each statement;
 * `unitOfWork.run` gives a scope bound to one transaction (jobs included, through pg-boss's `db` option).
 * `boss` may be null for processes that never enqueue (the admin CLI).
 *
 * `taskPoll` answers a poll in one statement (the task and the key's revocation). `taskIntake` and
 * `taskCompletion` are where the money rules run (pass them to createGengate): see
 * postgresStoresModule, which this resolves in a container of its own (createGengateHost loads the same
 * module into the host's container, where an embedder may rebind any of them).
 */
export function createPgStores(
  pool: pg.Pool,
  boss: PgBoss | null,
  options: PgStoresOptions,
): { stores: TransactionScope; unitOfWork: UnitOfWork; taskIntake: TaskIntake; taskCompletion: TaskCompletion; taskPoll?: TaskPoll; usageReader?: UsageReader; organizations: OrganizationStore } {
  const container = new Container();
  container.load(
    postgresStoresModule({
      pool,
      boss,
      schema: options.schema,
      ...(options.replace ? { replace: options.replace } : {}),
      ...(options.keyCache ? { keyCache: options.keyCache } : {}),
    }),
  );
  return {
    stores: container.get(TOKENS.Stores),
    unitOfWork: container.get(TOKENS.UnitOfWork),
    taskIntake: container.get(TOKENS.TaskIntake),
    taskCompletion: container.get(TOKENS.TaskCompletion),
    // With the task or key store replaced, none: createGengate's default is the poll over the stores.
    ...(options.replace?.tasks === undefined && options.replace?.keys === undefined ? { taskPoll: container.get(TOKENS.TaskPoll) } : {}),
    ...(container.isBound(TOKENS.UsageReader) ? { usageReader: container.get(TOKENS.UsageReader) } : {}),
    organizations: container.get(TOKENS.OrganizationStore),
  };
}
