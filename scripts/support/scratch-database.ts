import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@gengate/host/server';
import { createTestDatabase } from '@gengate/testing/host';

/**
 * A throw-away database: a fresh one on DATABASE_URL's server when set, else an embedded PostgreSQL.
 * `url` is what a co-located host should use (the embedded server's Unix-domain socket when it has one),
 * `tcpUrl` the same database over TCP (equal to `url` on DATABASE_URL's server).
 */
export async function scratchDatabase(): Promise<{ url: string; tcpUrl: string; close(): Promise<void> }> {
  const base = process.env['DATABASE_URL'];
  if (base) {
    const db = await createTestDatabase(base);
    return { url: db.url, tcpUrl: db.url, close: () => db.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'gg-bench-'));
  chmodSync(dir, 0o755);
  const embedded = await startEmbeddedPostgres({ dataDir: join(dir, 'pg') });
  return {
    url: embedded.url,
    tcpUrl: embedded.tcpUrl,
    async close() {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

