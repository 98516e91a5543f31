import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../src/postgres/migrate.js';
import { MIGRATIONS } from '../src/postgres/migrations/index.js';
import { loadConfig } from '../src/server/config.js';
import { startServer } from '../src/server/start-server.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { MIGRATIONS_AT_F04FA3B } from './support/migrations-at-f04fa3b.js';
import { tempDataDir, waitFor } from './support/spawn-server.js';

/**
 * Issue 22's acceptance line: "A database created by today's main, with users, keys, tasks and ledger rows,
 * upgraded: every balance, key and task belongs to the right personal organization; the ledger invariant
 * holds." The database is fixtures/db-before-organizations.sql: the data of a database that gengate at commit
 * 24831e1 (main before organizations, migrations 001-024) wrote through its own HTTP API, admin use cases and
 * worker (how: the fixture's header and fixtures/make-db-before-organizations.ts.txt). The schema is rebuilt
 * with migrations 001-024 as that commit had them (support/migrations-at-f04fa3b.ts: unchanged from 24831e1 to
 * f04fa3b; the versions are checked against the fixture's bookkeeping), the data loaded, then today's migrations run as today's host would.
 */
const FIXTURE = fileURLToPath(new URL('./fixtures/db-before-organizations.sql', import.meta.url));
const LAST_BEFORE_ORGANIZATIONS = 24;

/** The fixture's people and keys (test data of a throwaway database; the keys are valid in it only). */
const ALICE = { id: 'ee70546f-aece-452b-a666-f7acd3c04273', key: 'gg_live_KBesLne52U4hqSodTQWR0DWmp726SQyWnW12gBjopSo' };
const BOB = { id: '53fc4402-9058-4102-99c8-4800ad05c87d' };
const CAROL = { id: '1688b196-fd67-4ebf-b787-9266b4bd2bd3' };
/** Bob's key with controls (spend limit 20 per day, soft threshold 50 %, image and chat only, 3 concurrent). */
const BUDGET_KEY = { id: 'bb39a3b7-67d1-4c23-9941-106c9215b76a', key: 'gg_live_2L0OeSzI8JrNbb_u4NJAdugzTH-gPUULaYN12SF_l6w' };
const REVOKED_KEY = 'gg_live_ZO8crToRVYXkudbkRcBQpxG-0L_dx6ry92z60vnxE8U';
const USERS = [ALICE.id, BOB.id, CAROL.id].sort();

/** Every table whose `user_id` now names the owning organization. */
const OWNED_TABLES = ['accounts', 'api_keys', 'tasks', 'holds', 'transactions', 'balance_alerts', 'idempotency_keys', 'usage_rollups', 'usage_rollups_daily'];

/** What each user owned before the upgrade, in figures that must not move. */
const FIGURES_SQL = `
  select u.id as user_id,
    (select count(*) from gengate.api_keys k where k.user_id = u.id)::int as keys,
    (select count(*) from gengate.tasks t where t.user_id = u.id)::int as tasks,
    (select coalesce(sum(amount_micro), 0) from gengate.holds h where h.user_id = u.id and h.state = 'held')::text as held,
    (select coalesce(sum(credits_micro), 0) from gengate.transactions x where x.user_id = u.id and x.status = 'completed')::text as balance,
    (select count(*) from gengate.transactions x where x.user_id = u.id)::int as transactions,
    (select count(*) from gengate.balance_alerts a where a.user_id = u.id)::int as alerts,
    (select coalesce(sum(s.held_micro + s.charged_micro), 0) from gengate.key_spend s join gengate.api_keys k on k.id = s.api_key_id where k.user_id = u.id)::text as key_spend,
    (select coalesce(sum(r.credits_micro), 0) from gengate.usage_rollups r where r.user_id = u.id)::text as usage
  from gengate.users u order by u.id`;

describe('upgrading a database made before organizations (commit 24831e1)', () => {
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const d of dbs) await d.drop();
  });

  it('gives every user a personal organization owning all their rows; the ledger holds; a key of the old database still runs a task', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    const rows = async <R extends pg.QueryResultRow>(sql: string, values: unknown[] = []) => (await pool.query<R>(sql, values)).rows;
    const count = async (sql: string) => Number((await rows<{ n: string }>(sql))[0]?.n ?? -1);
    try {
      await pool.query(`create schema gengate;
        create table gengate.gengate_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`);
      for (const m of MIGRATIONS_AT_F04FA3B.filter((x) => x.version <= LAST_BEFORE_ORGANIZATIONS)) await pool.query(`begin; ${m.up('gengate')}; commit;`);
      await pool.query(readFileSync(FIXTURE, 'utf8'));
      const recorded = (await rows<{ version: number }>('select version from gengate.gengate_migrations order by version')).map((r) => r.version);
      expect(recorded).toEqual(MIGRATIONS.filter((x) => x.version <= LAST_BEFORE_ORGANIZATIONS).map((x) => x.version));
      const before = await rows(FIGURES_SQL);
      expect(before.map((r) => r['user_id'])).toEqual(USERS);
      // Every state the fixture promises is there: tasks in each state, a revoked key, an idempotency row.
      expect((await rows<{ status: string }>('select status from gengate.tasks order by status')).map((r) => r.status)).toEqual([
        'fail', 'generating', 'generating', 'success', 'success', 'waiting',
      ]);
      expect(await count('select count(*) as n from gengate.api_keys where revoked_at is not null')).toBe(1);
      expect(await count('select count(*) as n from gengate.idempotency_keys')).toBe(1);
      expect(await ledgerViolations(db.url)).toEqual([]);

      const { applied } = await runMigrations(pool, 'gengate');
      expect(applied).toEqual(MIGRATIONS.filter((x) => x.version > LAST_BEFORE_ORGANIZATIONS).map((x) => x.version));

      // One personal organization per user, its id the user's, the user its one member and owner.
      expect(await rows('select id, personal from gengate.organizations order by id')).toEqual(USERS.map((id) => ({ id, personal: true })));
      expect(await rows('select organization_id, user_id, role from gengate.organization_members order by organization_id')).toEqual(
        USERS.map((id) => ({ organization_id: id, user_id: id, role: 'owner' })),
      );
      // Every owned row names a personal organization, and that organization is its user's (the same id).
      for (const t of OWNED_TABLES) {
        expect(await count(`select count(*) as n from gengate.${t} x left join gengate.organizations o on o.id = x.user_id and o.personal where o.id is null`), t).toBe(0);
        expect(await count(`select count(*) as n from gengate.${t} x left join gengate.users u on u.id = x.user_id where u.id is null`), t).toBe(0);
      }
      expect(await count('select count(*) as n from gengate.key_spend s left join gengate.api_keys k on k.id = s.api_key_id where k.id is null')).toBe(0);
      // Each key's member is its user; each task's member is its user (unset = its organization's owner); each usage row's member is its user.
      expect(await count('select count(*) as n from gengate.api_keys where member_id is distinct from user_id')).toBe(0);
      expect(await count('select count(*) as n from gengate.tasks where coalesce(member_id, user_id) <> user_id')).toBe(0);
      expect(await count('select count(*) as n from gengate.usage_rollups where member_id <> user_id')).toBe(0);
      expect(await count('select count(*) as n from gengate.usage_rollups_daily where member_id <> user_id')).toBe(0);
      // Nothing moved: per user the same keys, tasks, holds, balance, transactions, alerts, key spend and usage.
      expect(await rows(FIGURES_SQL)).toEqual(before);
      // The foreign keys of the money tables name organizations now.
      const fks = await rows<{ tbl: string; target: string }>(`
        select c.conrelid::regclass::text as tbl, c.confrelid::regclass::text as target from pg_constraint c
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
        where c.contype = 'f' and a.attname = 'user_id' and c.conrelid::regclass::text in (${OWNED_TABLES.slice(0, 7).map((t) => `'gengate.${t}'`).join(', ')})`);
      expect(fks.map((f) => f.target)).toEqual(OWNED_TABLES.slice(0, 7).map(() => 'gengate.organizations'));
      expect(await ledgerViolations(db.url)).toEqual([]);

      // Today's host on the upgraded database: the old keys authenticate and spend their organization's balance.
      const server = await startServer(loadConfig({ DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), PORT: '0', SANDBOX_LATENCY_MS: '5', LOG_LEVEL: 'silent' }), {
        logger: pino({ level: 'silent' }),
      });
      try {
        const api = async (key: string, path: string, init: { method?: string; body?: unknown } = {}) => {
          const res = await fetch(`${server.url}/api/v1${path}`, {
            method: init.method ?? 'GET',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
          });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        };
        const ended = (key: string, id: string) =>
          waitFor(async () => ((await api(key, `/run/tasks/${id}`)).body['status'] === 'success' ? true : null), { timeoutMs: 20_000, intervalMs: 50, what: `task ${id}` });

        const balance = await api(ALICE.key, '/billing/balance');
        expect(balance.status).toBe(200);
        expect(balance.body['credits']).toBe(98); // 100 granted, 2 charged for the pixel image
        const run = await api(ALICE.key, '/run/sandbox.pixel-image', { method: 'POST', body: { prompt: 'after the upgrade' } });
        expect(run.status).toBe(200);
        await ended(ALICE.key, run.body['task_id'] as string);
        expect((await api(ALICE.key, '/billing/balance')).body['credits']).toBeLessThan(98);
        // The budgeted key keeps its controls and spends bob's balance.
        const budgeted = await api(BUDGET_KEY.key, '/run/sandbox.pixel-image', { method: 'POST', body: { prompt: 'budgeted, after the upgrade' } });
        expect(budgeted.status).toBe(200);
        await ended(BUDGET_KEY.key, budgeted.body['task_id'] as string);
        expect(await rows('select spend_limit_micro::int as limit, budget_period, member_id from gengate.api_keys where id = $1', [BUDGET_KEY.id])).toEqual([
          { limit: 20_000_000, budget_period: 'day', member_id: BOB.id },
        ]);
        expect(await count(`select count(*) as n from gengate.tasks where api_key_id = '${BUDGET_KEY.id}' and user_id = '${BOB.id}'`)).toBe(3);
        // A key revoked before the upgrade stays revoked.
        expect((await api(REVOKED_KEY, '/billing/balance')).status).toBe(401);
      } finally {
        await server.close();
      }
      // The new tasks' usage is in the rollups under their members; the ledger still holds.
      expect(await count(`select count(*) as n from gengate.usage_rollups where user_id = '${ALICE.id}' and member_id = '${ALICE.id}'`)).toBeGreaterThan(0);
      expect(await ledgerViolations(db.url)).toEqual([]);
    } finally {
      await pool.end();
    }
  }, 60_000);
});
