import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { runMigrations } from '../postgres/migrate.js';
import type { GengateConfig } from './config.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

export interface OpenDatabase {
  readonly url: string;
  readonly pool: pg.Pool;
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
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client error'));
  try {
    const { applied } = await runMigrations(pool);
    if (applied.length > 0) logger.info({ applied }, 'database migrated');
  } catch (err) {
    await pool.end();
    await embedded?.stop();
    throw err;
  }
  return {
    url,
    pool,
    embedded: embedded !== null,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}
