import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { runMigrations } from '../postgres/migrate.js';
import type { GengateConfig } from './config.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

export interface OpenDatabase {
  /** The connection URL, password included: never log it (log `where` instead). */
  readonly url: string;
  /** Host, port and database name: what start-up logs say about the database. */
  readonly where: { readonly host: string; readonly port: number; readonly name: string; readonly embedded: boolean };
  readonly pool: pg.Pool;
  /** gengate's schema in it (DATABASE_SCHEMA), migrated. */
  readonly schema: string;
  readonly embedded: boolean;
  close(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts (or reuses) the embedded PostgreSQL under the data directory; then migrates. */
export async function openDatabase(config: GengateConfig, logger: Logger): Promise<OpenDatabase> {
  const embedded = config.databaseUrl
    ? null
    : await startEmbeddedPostgres({
        dataDir: join(config.dataDir, 'postgres'),
        logger: { info: (m) => logger.info(m), warn: (m) => logger.warn(m) },
      });
  const url = config.databaseUrl ?? embedded?.url;
  if (!url) throw new Error('no database url');
  // Pipeline mode: a submission's statements travel in one round trip (PgTaskIntake).
  const pool = new pg.Pool({ connectionString: url, max: 20, pipeline: true });
  pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client error'));
  try {
    const { applied, adopted } = await runMigrations(pool, config.databaseSchema);
    if (adopted) logger.warn({ schema: config.databaseSchema }, "gengate's tables moved from schema public into their own schema");
    if (applied.length > 0) logger.info({ applied, schema: config.databaseSchema }, 'database migrated');
  } catch (err) {
    await pool.end();
    await embedded?.stop();
    throw err;
  }
  return {
    url,
    where: describeDatabase(url, embedded !== null),
    pool,
    schema: config.databaseSchema,
    embedded: embedded !== null,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}

/** Host, port and name of a PostgreSQL URL, without user or password. */
export function describeDatabase(url: string, embedded: boolean): OpenDatabase['where'] {
  try {
    const u = new URL(url);
    // `?host=/dir` (a Unix-domain socket, as the embedded server's url) wins over the URL's host name.
    return { host: u.searchParams.get('host') ?? u.hostname, port: Number(u.port || 5432), name: decodeURIComponent(u.pathname.slice(1)), embedded };
  } catch {
    return { host: 'unknown', port: 0, name: 'unknown', embedded };
  }
}
