import { StoreTaskPoll, TOKENS } from '@gengate/core';
import { UnitOfWorkTaskCompletion, UnitOfWorkTaskIntake } from '@gengate/core/internal';
import { ContainerModule } from 'inversify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { HOST_TOKENS } from '../host-tokens.js';
import { KeyCache, type KeyCacheOptions } from './cached-key-store.js';
import { JobWakeups } from './job-wakeups.js';
import { PgScopes } from './pg-scopes.js';
import { PgTaskCompletion } from './pg-task-completion.js';
import { PgTaskIntake } from './pg-task-intake.js';
import { PgTaskPoll } from './pg-task-poll.js';
import { PgUsageReader } from './pg-usage-reader.js';
import { organizationSql, PgOrganizationStore } from './pg-organization-store.js';
import { PgUnitOfWork } from './pg-transactions.js';
import { PG_TOKENS } from './postgres-tokens.js';
import { checkSchemaName } from './schema.js';
import { anyReplaced, type StoreReplacements } from './store-replacements.js';

export interface PostgresStoresModuleOptions {
  readonly pool: pg.Pool;
  /** gengate's schema: the name runMigrations used. */
  readonly schema: string;
  /**
   * The job queue, bound as given (null: a process that never enqueues, such as the admin CLI). Left out,
   * the token stays unbound here and another module binds it (the host's, from its settings).
   */
  readonly boss?: PgBoss | null;
  /** Stores to use instead of gengate's own (see StoreReplacement and docs/architecture.md, "SQL and the schema"). */
  readonly replace?: StoreReplacements;
  /** The cache of gengate's own key store (see PgStoresOptions.keyCache); default 2 s. */
  readonly keyCache?: KeyCacheOptions;
}

/**
 * The PostgreSQL stores: `TOKENS.Stores` (each statement autocommits), `TOKENS.UnitOfWork` (a scope per
 * transaction), `TOKENS.TaskPoll` (a poll in one statement: the task and the key's revocation; over the
 * stores when the task or key store is replaced), and `TOKENS.TaskIntake` / `TOKENS.TaskCompletion`, where the money rules run. With
 * gengate's own stores those are PgTaskIntake and PgTaskCompletion, which only call the SQL functions of
 * migration 018 (the rules' one home on PostgreSQL); with any store replaced they are core's
 * implementations over the unit of work, so the replacement is what the rules read and write. Whether a
 * store is replaced is decided here, from the options, never from which tables the SQL touches.
 *
 * Lifetimes: the pool, the schema, the job queue and the replacements are configuration (constants: the
 * embedder's values, or the host's); everything else is a singleton of the container (the key cache is one
 * per container, so one per process for the host). The stores of a
 * transaction are not bindings: PgScopes makes them for each `unitOfWork.run`, over that transaction's client.
 */
export function postgresStoresModule(options: PostgresStoresModuleOptions): ContainerModule {
  const schema = checkSchemaName(options.schema);
  const replace = options.replace ?? {};
  const replaced = anyReplaced(replace);
  return new ContainerModule(({ bind }) => {
    bind(HOST_TOKENS.Pool).toConstantValue(options.pool);
    bind(HOST_TOKENS.Schema).toConstantValue(schema);
    if (options.boss !== undefined) bind(HOST_TOKENS.Boss).toConstantValue(options.boss);
    bind(PG_TOKENS.StoreReplacements).toConstantValue(replace);
    bind(JobWakeups).toSelf().inSingletonScope();
    bind(PG_TOKENS.WakeJobs)
      .toResolvedValue((wakeups: JobWakeups) => (queue: string, jobs: number) => wakeups.wake(queue, jobs), [JobWakeups])
      .inSingletonScope();
    bind(KeyCache).toConstantValue(new KeyCache(options.keyCache));
    bind(PgScopes).toSelf().inSingletonScope();
    bind(TOKENS.UnitOfWork).to(PgUnitOfWork).inSingletonScope();
    // Outside any transaction: the scope over the pool, whose jobs wake their workers at once.
    bind(TOKENS.Stores)
      .toResolvedValue((scopes: PgScopes, pool: pg.Pool, wakeups: JobWakeups) => scopes.over(pool, (queue) => wakeups.wake(queue)), [PgScopes, HOST_TOKENS.Pool, JobWakeups])
      .inSingletonScope();
    if (replace.tasks === undefined && replace.keys === undefined) {
      bind(TOKENS.TaskPoll).toResolvedValue((pool: pg.Pool, s: string) => new PgTaskPoll(pool, s), [HOST_TOKENS.Pool, HOST_TOKENS.Schema]).inSingletonScope();
    } else {
      bind(TOKENS.TaskPoll).to(StoreTaskPoll).inSingletonScope();
    }
    if (replaced) {
      bind(TOKENS.TaskIntake).to(UnitOfWorkTaskIntake).inSingletonScope();
      bind(TOKENS.TaskCompletion).to(UnitOfWorkTaskCompletion).inSingletonScope();
    } else {
      bind(TOKENS.TaskIntake).to(PgTaskIntake).inSingletonScope();
      bind(TOKENS.TaskCompletion).to(PgTaskCompletion).inSingletonScope();
    }
    bind(TOKENS.OrganizationStore)
      .toResolvedValue((pool: pg.Pool, s: string) => new PgOrganizationStore(pool, organizationSql(s)), [HOST_TOKENS.Pool, HOST_TOKENS.Schema])
      .inSingletonScope();
    // The rollups are written from the tasks and transactions tables (migration 023): only while both are PostgreSQL's.
    if (replace.tasks === undefined && replace.ledger === undefined) {
      bind(TOKENS.UsageReader).toResolvedValue((pool: pg.Pool, s: string) => new PgUsageReader(pool, s), [HOST_TOKENS.Pool, HOST_TOKENS.Schema]).inSingletonScope();
    }
  });
}
