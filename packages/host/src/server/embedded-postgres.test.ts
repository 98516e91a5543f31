import { chmodSync, mkdtempSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { socketDirFits, startEmbeddedPostgres } from './embedded-postgres.js';

async function query<T extends object>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('startEmbeddedPostgres', () => {
  it('starts, is reused by a second caller, keeps data across restarts and survives a stale pid file', { timeout: 120_000 }, async () => {
    const parent = mkdtempSync(join(tmpdir(), 'gg-embedded-'));
    chmodSync(parent, 0o755); // reachable by the postgres user when the tests run as root
    const dataDir = join(parent, 'postgres');
    const first = await startEmbeddedPostgres({ dataDir });
    expect(first.reused).toBe(false);
    expect(first.tcpUrl).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/gengate$/);
    // The host connects through the socket in the data directory; TCP stays for other clients.
    expect(first.socketDir).toBe(dataDir);
    expect(first.url).toBe(`${first.tcpUrl.replace('127.0.0.1', 'localhost')}?host=${encodeURIComponent(dataDir)}`);
    expect(await query<{ local: boolean }>(first.url, 'select inet_client_addr() is null as local')).toEqual([{ local: true }]);
    expect(await query<{ local: boolean }>(first.tcpUrl, 'select inet_client_addr() is null as local')).toEqual([{ local: false }]);
    await query(first.url, 'create table kept (v int); insert into kept values (42)');

    const second = await startEmbeddedPostgres({ dataDir });
    expect(second.reused).toBe(true);
    expect(second.url).toBe(first.url);
    expect(await query<{ v: number }>(second.url, 'select v from kept')).toEqual([{ v: 42 }]);
    await second.stop(); // a reusing caller leaves the server running
    expect(await query<{ v: number }>(first.tcpUrl, 'select v from kept')).toEqual([{ v: 42 }]);
    await first.stop();

    // A process killed with SIGKILL leaves postmaster.pid behind: simulate it with a dead pid.
    const pidFile = join(dataDir, 'postmaster.pid');
    writeFileSync(pidFile, '999999\n');
    const third = await startEmbeddedPostgres({ dataDir });
    expect(third.reused).toBe(false);
    expect(await query<{ v: number }>(third.url, 'select v from kept')).toEqual([{ v: 42 }]);
    expect(readFileSync(pidFile, 'utf8').split('\n')[0]).not.toBe('999999');
    await third.stop();
  });

  it('listens on TCP only when the data directory is too deep for a socket path', () => {
    expect(socketDirFits('/tmp/gg-bench-abc/pg')).toBe(true);
    expect(socketDirFits(`/tmp/${'d'.repeat(90)}`)).toBe(false);
    expect(socketDirFits('/home/me/Application Support/gengate')).toBe(false);
  });

  it('writes the initdb password file with mode 0600 from its creation', { timeout: 120_000 }, async () => {
    const parent = mkdtempSync(join(tmpdir(), 'gg-embedded-pw-'));
    chmodSync(parent, 0o755);
    const modes: number[] = [];
    // Every password file that appears while initdb runs is inspected as soon as it is seen.
    const watcher = watch(tmpdir(), (_event, name) => {
      if (!name?.startsWith('gengate-pw-')) return;
      try {
        modes.push(statSync(join(tmpdir(), name)).mode & 0o777);
      } catch {
        // already removed
      }
    });
    try {
      const pg = await startEmbeddedPostgres({ dataDir: join(parent, 'postgres') });
      await pg.stop();
    } finally {
      watcher.close();
    }
    expect(modes.length).toBeGreaterThan(0);
    expect(modes.map((m) => m.toString(8))).toEqual(modes.map(() => '600'));
  });
});
