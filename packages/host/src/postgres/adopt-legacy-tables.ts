import type { Queryable } from './queryable.js';

/** Every table versions before the schema setting created in `public` (migrations 001 to 012 and their bookkeeping). */
const LEGACY_TABLES = [
  'gengate_migrations',
  'users',
  'api_keys',
  'accounts',
  'tasks',
  'holds',
  'transactions',
  'balance_alerts',
  'gengate_rate_limits',
  'callback_attempts',
  'idempotency_keys',
  'gengate_secrets',
  'provider_call_leases',
  'sign_in_tokens',
  'dashboard_sessions',
] as const;

/**
 * Their PL/pgSQL functions. Moved with the tables; runMigrations then replaces their definitions with the
 * current ones, which name the tables in the schema (function-set.ts; a legacy database always has migrations to run).
 */
const LEGACY_FUNCTIONS = [
  'gengate_enforce_user_cap',
  'gengate_notify_task_ended',
  'gengate_count_active_tasks',
  'gengate_recount_active_tasks',
  'gengate_submit_task',
  'gengate_finish_success',
] as const;

/**
 * Upgrade of a database made before gengate had its own schema: when `public.gengate_migrations` exists
 * and `<schema>.gengate_migrations` does not, moves gengate's tables (with their rows, indexes,
 * constraints, triggers and sequences: ALTER TABLE ... SET SCHEMA keeps them all) and functions from
 * `public` into the schema (runMigrations then redefines the functions so their bodies name the tables
 * there, before any migration runs). One transaction: it happens whole or not at all. Runs under runMigrations' advisory lock; returns whether it moved anything.
 */
export async function adoptLegacyTables(db: Queryable, schema: string): Promise<boolean> {
  if (schema === 'public') return false;
  const { rows } = await db.query<{ legacy: boolean; current: boolean }>(
    `select to_regclass('public.gengate_migrations') is not null as legacy, to_regclass($1) is not null as current`,
    [`${schema}.gengate_migrations`],
  );
  if (!rows[0]?.legacy || rows[0].current) return false;
  await db.query('begin');
  try {
    for (const table of LEGACY_TABLES) await db.query(`alter table if exists public.${table} set schema ${schema}`);
    const functions = await db.query<{ name: string; args: string }>(
      `select p.proname as name, pg_get_function_identity_arguments(p.oid) as args
       from pg_proc p where p.pronamespace = 'public'::regnamespace and p.proname = any($1::text[])`,
      [LEGACY_FUNCTIONS],
    );
    for (const f of functions.rows) await db.query(`alter function public.${f.name}(${f.args}) set schema ${schema}`);
    await db.query('commit');
    return true;
  } catch (err) {
    await db.query('rollback').catch(() => undefined);
    throw new Error(`moving gengate's tables from public into schema ${schema} failed: ${(err as Error).message}`, { cause: err });
  }
}
