import { MIGRATIONS } from '../postgres/migrations/index.js';
import type { Queryable } from '../postgres/queryable.js';
import { quoteIdent } from '../postgres/schema.js';

export interface ReadinessReport {
  readonly ready: boolean;
  /** Each check: 'ok' or what is wrong. */
  readonly checks: Readonly<Record<'database' | 'migrations', string>>;
}

/** How old the database part of /readyz may be: probes more frequent than this share one statement. */
export const READINESS_MAX_AGE_MS = 1_000;

/** The latest migration this code knows. A database migrated further (a newer process) is fine: migrations expand first. */
export const LATEST_MIGRATION = Math.max(...MIGRATIONS.map((m) => m.version));

/**
 * The database part of GET /readyz: the database answers within the timeout and its migrations are at
 * least this code's (the router adds whether the job queue is started).
 */
export async function checkReadiness(db: Queryable, opts: { readonly schema: string; readonly timeoutMs?: number }): Promise<ReadinessReport> {
  let database = 'ok';
  let migrations = 'ok';
  try {
    const query = db.query<{ version: number | null }>(`select max(version)::int as version from ${quoteIdent(opts.schema)}.gengate_migrations`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${opts.timeoutMs ?? 2_000} ms`)), opts.timeoutMs ?? 2_000);
    });
    try {
      const { rows } = await Promise.race([query, timeout]);
      const version = rows[0]?.version ?? 0;
      if (version < LATEST_MIGRATION) migrations = `database at migration ${version}, this process needs ${LATEST_MIGRATION}`;
    } finally {
      clearTimeout(timer);
      query.catch(() => undefined);
    }
  } catch (err) {
    database = `unreachable: ${(err as Error).message}`;
    migrations = 'unknown (database unreachable)';
  }
  return { ready: database === 'ok' && migrations === 'ok', checks: { database, migrations } };
}
