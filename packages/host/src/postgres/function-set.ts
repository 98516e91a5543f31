import { createHash } from 'node:crypto';
import { FUNCTIONS } from './functions/index.js';
import type { SqlFunction } from './functions/sql-function.js';
import type { Queryable } from './queryable.js';

/**
 * The database's SQL functions kept equal to functions/ (FUNCTIONS), like Flyway's repeatable migrations:
 * a function is defined once, in its file, and every start whose set differs from the one recorded in
 * `<schema>.gengate_function_set` (a hash of the set's SQL) replaces the definitions in one transaction.
 * runMigrations calls it under its advisory lock: before the versioned migrations (their triggers need their
 * functions; bodies unchecked, the tables may not exist yet) and after them (bodies checked, hash recorded).
 */

/** PostgreSQL's SQLSTATE for a `create or replace` that would change a parameter's name or the return type. */
const INVALID_FUNCTION_DEFINITION = '42P13';

/** The set's fingerprint for this schema: its functions' names, signatures and SQL, in order. */
export function functionSetHash(schema: string, functions: readonly SqlFunction[] = FUNCTIONS): string {
  const hash = createHash('sha256');
  for (const f of functions) hash.update(`${f.name}(${f.identityArgs})\n${f.sql(schema)}\n`);
  return hash.digest('hex');
}

/**
 * Creates or replaces every function of the set, checks that each now exists under its identity, then drops
 * every other `gengate_*` function of gengate's schema (a stale overload, or a retired function). Runs in the
 * caller's transaction. `checkBodies: false` for a schema whose tables are not all there yet. A function whose
 * parameter names or return type changed is dropped and created again (a trigger's function never changes
 * either, so nothing depending on it is dropped; a drop that would need CASCADE fails instead). Returns the
 * dropped functions' signatures.
 */
export async function defineFunctions(
  db: Queryable,
  schema: string,
  opts: { readonly checkBodies: boolean },
  functions: readonly SqlFunction[] = FUNCTIONS,
): Promise<string[]> {
  await db.query(`set local check_function_bodies = ${opts.checkBodies ? 'on' : 'off'}`);
  for (const f of functions) {
    await db.query('savepoint gengate_define_function');
    try {
      await db.query(f.sql(schema));
    } catch (err) {
      if ((err as { code?: string }).code !== INVALID_FUNCTION_DEFINITION) throw err;
      await db.query('rollback to savepoint gengate_define_function');
      await db.query(`drop function ${schema}.${f.name}(${f.identityArgs})`);
      await db.query(f.sql(schema));
    }
    await db.query('release savepoint gengate_define_function');
  }
  const signatures = functions.map((f) => `${schema}.${f.name}(${f.identityArgs})`);
  const missing = await db.query<{ signature: string }>(
    'select s as signature from unnest($1::text[]) s where to_regprocedure(s) is null',
    [signatures],
  );
  if (missing.rows.length > 0) {
    throw new Error(`SQL functions not defined under their identityArgs: ${missing.rows.map((r) => r.signature).join(', ')}`);
  }
  const stale = await db.query<{ signature: string }>(
    `select format('%I.%I(%s)', $1::text, p.proname, oidvectortypes(p.proargtypes)) as signature from pg_proc p
     where p.pronamespace = $1::text::regnamespace and p.prokind = 'f' and p.proname like 'gengate\\_%'
       and p.oid <> all (select to_regprocedure(s)::oid from unnest($2::text[]) s)
     order by 1`,
    [schema, signatures],
  );
  for (const s of stale.rows) await db.query(`drop function ${s.signature}`);
  return stale.rows.map((r) => r.signature);
}

/**
 * Applies the set when its hash differs from the recorded one (or `force`: a migration ran, which may have
 * changed a function), in its own transaction, bodies checked, and records the hash. Returns whether it applied.
 */
export async function syncFunctionSet(db: Queryable, schema: string, force: boolean): Promise<boolean> {
  const hash = functionSetHash(schema);
  await db.query(`create table if not exists ${schema}.gengate_function_set (
    singleton boolean primary key default true check (singleton), hash text not null, applied_at timestamptz not null default now())`);
  const recorded = await db.query<{ hash: string }>(`select hash from ${schema}.gengate_function_set`);
  if (!force && recorded.rows[0]?.hash === hash) return false;
  await db.query('begin');
  try {
    await defineFunctions(db, schema, { checkBodies: true });
    await db.query(
      `insert into ${schema}.gengate_function_set (hash) values ($1)
       on conflict (singleton) do update set hash = excluded.hash, applied_at = now()`,
      [hash],
    );
    await db.query('commit');
    return true;
  } catch (err) {
    await db.query('rollback');
    throw new Error(`defining gengate's SQL functions failed: ${(err as Error).message}`, { cause: err });
  }
}
