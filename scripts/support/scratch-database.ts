import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@gengate/host';
import pg from 'pg';

/** A throw-away database: a fresh one on DATABASE_URL's server when set, else an embedded PostgreSQL. */
export async function scratchDatabase(): Promise<{ url: string; close(): Promise<void> }> {
  const base = process.env['DATABASE_URL'];
  if (base) {
    const name = `gg_scratch_${Date.now()}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async close() {
        const c = new pg.Client({ connectionString: base });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'gg-bench-'));
  chmodSync(dir, 0o755);
  const embedded = await startEmbeddedPostgres({ dataDir: join(dir, 'pg') });
  return {
    url: embedded.url,
    async close() {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

