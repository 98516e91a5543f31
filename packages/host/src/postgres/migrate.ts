import type pg from 'pg';
import { adoptLegacyTables } from './adopt-legacy-tables.js';
import { defineFunctions, syncFunctionSet } from './function-set.js';
import { MIGRATIONS } from './migrations/index.js';
import { checkSchemaName } from './schema.js';

const LOCK_ID = 0x67656e67; // 'geng'

/**
 * Applies missing migrations in gengate's schema (created if missing), each in its own transaction, under
 * an advisory lock (safe with concurrent starts). A database made by a version without the schema setting
 * (gengate's tables in `public`) has them moved into the schema first (adoptLegacyTables); `adopted` says so.
 * The SQL functions (functions/, one file each) are not in the migrations: they are defined before the
 * missing migrations run (a trigger needs its function; bodies unchecked) and again after them when a
 * migration ran or the set differs from the one recorded (function-set.ts). A start with nothing to do changes nothing.
 */
export async function runMigrations(pool: pg.Pool, schema: string): Promise<{ applied: number[]; adopted: boolean }> {
  checkSchemaName(schema);
  const client = await pool.connect();
  const applied: number[] = [];
  let adopted = false;
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_ID]);
    const plain = await client.query<{ plain: boolean }>('select quote_ident($1) = $1 as plain', [schema]);
    if (!plain.rows[0]?.plain) throw new Error(`PostgreSQL schema name ${schema} is a reserved word: choose another`);
    await client.query(`create schema if not exists ${schema}`);
    adopted = await adoptLegacyTables(client, schema);
    await client.query(`create table if not exists ${schema}.gengate_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const done = new Set((await client.query<{ version: number }>(`select version from ${schema}.gengate_migrations`)).rows.map((r) => r.version));
    const missing = MIGRATIONS.filter((m) => !done.has(m.version));
    if (missing.length > 0) await defineFunctionsFirst(client, schema);
    for (const m of missing) {
      await client.query('begin');
      try {
        await client.query(m.up(schema));
        await client.query(`insert into ${schema}.gengate_migrations (version, name) values ($1, $2)`, [m.version, m.name]);
        await client.query('commit');
        applied.push(m.version);
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
      }
    }
    await syncFunctionSet(client, schema, applied.length > 0 || adopted);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    client.release();
  }
  return { applied, adopted };
}

/** The function set before the missing migrations, in its own transaction (their tables may not exist yet: bodies unchecked). */
async function defineFunctionsFirst(client: pg.PoolClient, schema: string): Promise<void> {
  await client.query('begin');
  try {
    await defineFunctions(client, schema, { checkBodies: false });
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw new Error(`defining gengate's SQL functions before the migrations failed: ${(err as Error).message}`, { cause: err });
  }
}
