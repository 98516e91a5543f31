import type pg from 'pg';
import { MIGRATIONS } from './migrations/index.js';

const LOCK_ID = 0x67656e67; // 'geng'

/** Applies missing migrations, each in its own transaction, under an advisory lock (safe with concurrent starts). */
export async function runMigrations(pool: pg.Pool): Promise<{ applied: number[] }> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(`create table if not exists gengate_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const done = new Set((await client.query<{ version: number }>('select version from gengate_migrations')).rows.map((r) => r.version));
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query('begin');
      try {
        await client.query(m.up);
        await client.query('insert into gengate_migrations (version, name) values ($1, $2)', [m.version, m.name]);
        await client.query('commit');
        applied.push(m.version);
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
      }
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    client.release();
  }
  return { applied };
}
