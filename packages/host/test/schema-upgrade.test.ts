import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, MemoryBlobStore, UnitOfWorkTaskCompletion, UnitOfWorkTaskIntake } from '@gengate/core/internal';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createBoss } from '../src/postgres/boss-queues.js';
import { ManualPaymentProcessor } from '../src/payments/manual-processor.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { MIGRATIONS } from '../src/postgres/migrations/index.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { loadConfig } from '../src/server/config.js';
import { startServer } from '../src/server/start-server.js';
import { MIGRATIONS_AT_F04FA3B } from './support/migrations-at-f04fa3b.js';
import { tempDataDir, waitFor } from './support/spawn-server.js';

const logger = pino({ level: 'silent' });

/**
 * A database as versions before the schema setting left it: migrations up to `upTo` run in `public`
 * with every name unqualified (their SQL then was this SQL without the `public.` prefixes), and the
 * bookkeeping table `public.gengate_migrations` as the old runMigrations wrote it. The migrations as an
 * older gengate wrote them (with their function bodies: support/migrations-at-f04fa3b.ts).
 */
async function legacyDatabase(pool: pg.Pool, upTo: number): Promise<void> {
  await pool.query(`create table gengate_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`);
  for (const m of MIGRATIONS_AT_F04FA3B.filter((x) => x.version <= upTo)) {
    const sql = m.up('public').replaceAll('public.', '').replaceAll('create or replace function', 'create function');
    await pool.query(`begin; ${sql}; insert into gengate_migrations (version, name) values (${m.version}, '${m.name.replaceAll("'", "''")}'); commit;`);
  }
}

const count = async (pool: pg.Pool, sql: string, values: unknown[] = []) => (await pool.query<{ n: number }>(sql, values)).rows[0]?.n;

/** The api_keys columns of migration 019 (per-key spend controls), as today's key store writes them. */
const KEY_CONTROL_STAND_INS = [
  'spend_limit_micro bigint',
  "budget_period text not null default 'none'",
  'soft_threshold_percent integer',
  'allowed_models text[]',
  'allowed_providers text[]',
  'allowed_modalities text[]',
  'max_concurrent_tasks integer',
  // …and the key's member (migration 025), which today's key store writes too.
  'member_id uuid',
];

describe('upgrading a database whose gengate tables are in public', () => {
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const d of dbs) await d.drop();
  });

  it('moves every table, row and function into the schema; a task submitted before the upgrade succeeds after it, with its key and balance', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    await legacyDatabase(pool, 12);

    // Data written as the old version did: the same statements, on the tables in public. Today's stores read
    // the account through the view account_totals (migration 020: the row and its pending rows); at 12 the
    // account is the row alone, so the stand-in view is that, dropped before the upgrade.
    await pool.query('create view public.account_totals as select * from public.accounts');
    // Likewise what today's stores write and read of the key's spend controls (migrations 019 and 029): stand-ins, dropped before the upgrade.
    await pool.query(KEY_CONTROL_STAND_INS.map((c) => `alter table public.api_keys add column ${c}`).join('; '));
    await pool.query(`alter table public.holds add column api_key_id uuid, add column key_period_start timestamptz;
      create table public.key_spend (api_key_id uuid, period_start timestamptz, held_micro bigint not null default 0,
        charged_micro bigint not null default 0, soft_alerted boolean not null default false, primary key (api_key_id, period_start));
      create view public.key_spend_totals as select * from public.key_spend`);
    // And of a member's spend limit (migrations 025 and 026): the submitting member on the task and its hold, no memberships;
    // and the task's route (021) and inline outputs (030), which today's task store names in its statements.
    await pool.query(`alter table public.tasks add column member_id uuid, add column route_id text,
        add column route_attempts jsonb not null default '[]'::jsonb, add column output_bodies bytea[];
      alter table public.holds add column member_id uuid, add column member_period_start timestamptz;
      create table public.organization_members (organization_id uuid, user_id uuid, spend_limit_micro bigint, budget_period text)`);
    const boss = await createBoss({ connectionString: db.url, logger });
    const old = createPgStores(pool, boss, { schema: 'public' });
    const gengate = createGengate({
      adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 5 } })],
      ...old,
      // The SQL functions of today (migration 018) are not in a database at 12: the same rules over the unit of work.
      taskIntake: new UnitOfWorkTaskIntake(old.unitOfWork),
      taskCompletion: new UnitOfWorkTaskCompletion(old.unitOfWork),
      blobStore: new MemoryBlobStore(),
      resultUrls: { urlFor: (k) => k },
      paymentProcessor: new ManualPaymentProcessor(),
    });
    const { api_key: key, user_id: userId } = await gengate.admin.createUser({ email: 'legacy@example.com', credits: 100 });
    const auth = await gengate.authenticate.execute(key, '127.0.0.1');
    const { task_id: waiting } = await gengate.submitRun.execute(auth, 'sandbox.echo-chat', { prompt: 'submitted before the upgrade' });
    await boss.stop({ graceful: false });
    await pool.query('drop view public.account_totals');
    await pool.query(KEY_CONTROL_STAND_INS.map((c) => `alter table public.api_keys drop column ${c.split(' ')[0]}`).join('; '));
    await pool.query('alter table public.holds drop column api_key_id, drop column key_period_start; drop view public.key_spend_totals; drop table public.key_spend');
    await pool.query('alter table public.tasks drop column member_id, drop column route_id, drop column route_attempts, drop column output_bodies; alter table public.holds drop column member_id, drop column member_period_start; drop table public.organization_members');
    const rowsBefore = await count(pool, 'select ((select count(*) from users) + (select count(*) from api_keys) + (select count(*) from transactions) + (select count(*) from holds))::int as n');

    const server = await startServer(loadConfig({ DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), PORT: '0', SANDBOX_LATENCY_MS: '5' }), { logger });
    try {
      const api = async (path: string, init: RequestInit = {}) =>
        (await fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } })).json() as Promise<Record<string, unknown>>;
      const ended = (id: string) => waitFor(async () => ((await api(`/run/tasks/${id}`))['status'] === 'success' ? true : null), { timeoutMs: 20_000, intervalMs: 50, what: `task ${id}` });
      await ended(waiting);
      const fresh = (await api('/run/sandbox.echo-chat', { method: 'POST', body: JSON.stringify({ prompt: 'after the upgrade' }) }))['task_id'] as string;
      await ended(fresh);
      expect((await api('/billing/balance'))['credits']).toBeLessThan(100);
    } finally {
      await server.close();
    }

    expect(await count(pool, `select count(*)::int as n from pg_tables where schemaname = 'public'`)).toBe(0);
    expect(await count(pool, `select count(*)::int as n from pg_proc where pronamespace = 'public'::regnamespace`)).toBe(0);
    expect(rowsBefore).toBe(4); // user, key, grant, hold
    expect(await count(pool, 'select ((select count(*) from gengate.users) + (select count(*) from gengate.api_keys) + (select count(*) from gengate.transactions where payment_method <> $1) + (select count(*) from gengate.holds where task_id = $2))::int as n', ['usage', waiting])).toBe(rowsBefore);
    expect(await count(pool, 'select count(*)::int as n from gengate.users where id = $1', [userId])).toBe(1);
    const versions = (await pool.query<{ version: number }>('select version from gengate.gengate_migrations order by version')).rows.map((r) => r.version);
    expect(versions).toEqual(MIGRATIONS.map((m) => m.version));
    // Every function now names its tables in the schema: none depends on a search_path.
    const bodies = (await pool.query<{ proname: string; prosrc: string }>(`select proname, prosrc from pg_proc where pronamespace = 'gengate'::regnamespace`)).rows;
    expect(bodies.map((b) => b.proname).sort()).toEqual([
      'gengate_admit_after_end',
      'gengate_admit_queued',
      'gengate_check_alerts',
      'gengate_complete_job',
      'gengate_count_active_tasks',
      'gengate_enforce_user_cap',
      'gengate_enqueue_job',
      'gengate_enqueue_jobs',
      'gengate_finish_fail',
      'gengate_finish_success',
      'gengate_finish_successes',
      'gengate_fold_pending',
      'gengate_fold_spend_pending',
      'gengate_fold_usage_pending',
      'gengate_key_budget_admit',
      'gengate_key_budget_period_changed',
      'gengate_key_member_default',
      'gengate_key_period_start',
      'gengate_key_spend_charge',
      'gengate_key_spend_hold',
      'gengate_member_budget_admit',
      'gengate_member_spend_charge',
      'gengate_member_spend_hold',
      'gengate_notify_task_ended',
      'gengate_personal_organization',
      'gengate_poll',
      'gengate_recount_active_tasks',
      'gengate_remove_job',
      'gengate_submit_locked_task',
      'gengate_submit_task',
      'gengate_submit_task_traced',
      'gengate_submit_tasks',
      'gengate_usage_rollup',
    ]);
    // (The job functions name pg-boss's tables through their schema parameter, none of gengate's; a key's
    // period start is arithmetic on its arguments; a lone success calls the batch's function, in the schema.)
    const noGengateTable = ['gengate_notify_task_ended', 'gengate_enqueue_job', 'gengate_enqueue_jobs', 'gengate_complete_job', 'gengate_remove_job', 'gengate_key_period_start', 'gengate_key_member_default'];
    expect(bodies.find((x) => x.proname === 'gengate_finish_success')?.prosrc).toMatch(/gengate\.gengate_finish_successes\(/);
    noGengateTable.push('gengate_finish_success');
    for (const b of bodies.filter((x) => !noGengateTable.includes(x.proname))) {
      expect(b.prosrc, b.proname).toMatch(/gengate\.(tasks|accounts|account_pending|account_totals|api_keys|balance_alerts|usage_rollups|usage_rollup_pending|holds|key_spend|member_spend|organization_members|organizations)/);
    }
    // The admission counts the trigger keeps on the account row agree with the tasks.
    expect(await count(pool, `select count(*)::int as n from gengate.gengate_recount_active_tasks()`)).toBe(0);
    await pool.end();
  });

  it('upgrades a database left at an older migration: moves what exists, then applies the rest in the schema', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    await legacyDatabase(pool, 6);
    await pool.query(`insert into users (id, email) values ('00000000-0000-4000-8000-000000000001', 'six@example.com')`);
    const { applied, adopted } = await runMigrations(pool, 'gg_app');
    expect(adopted).toBe(true);
    expect(applied).toEqual(MIGRATIONS.filter((m) => m.version > 6).map((m) => m.version));
    expect(await count(pool, `select count(*)::int as n from gg_app.users where email = 'six@example.com'`)).toBe(1);
    expect(await count(pool, `select count(*)::int as n from pg_tables where schemaname = 'public'`)).toBe(0);
    // A second start finds the schema's bookkeeping and does nothing.
    expect(await runMigrations(pool, 'gg_app')).toEqual({ applied: [], adopted: false });
    await pool.end();
  });

  it('keeps a database in public when DATABASE_SCHEMA=public, applying only what is missing', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    await legacyDatabase(pool, 12);
    const { applied, adopted } = await runMigrations(pool, 'public');
    expect(adopted).toBe(false);
    expect(applied).toEqual(MIGRATIONS.filter((m) => m.version > 12).map((m) => m.version));
    expect(await count(pool, `select count(*)::int as n from pg_namespace where nspname = 'gengate'`)).toBe(0);
    await pool.end();
  });

  it('refuses a schema name that is not a plain identifier, before touching the database', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    await expect(runMigrations(pool, 'Gen-Gate')).rejects.toThrow(/invalid PostgreSQL schema name/);
    await expect(runMigrations(pool, 'select')).rejects.toThrow(/reserved word/);
    expect(await count(pool, `select count(*)::int as n from pg_namespace where nspname not like 'pg\\_%' and nspname not in ('public', 'information_schema')`)).toBe(0);
    await pool.end();
  });
});
