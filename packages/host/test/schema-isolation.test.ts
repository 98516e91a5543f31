import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMaintenanceSteps, runMaintenance } from '../src/jobs/maintenance-worker.js';
import { MemoryBlobStore } from '@gengate/core';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { startRecordingReceiver, type RecordingReceiver } from './support/callback-receivers.js';
import { tempDataDir, waitFor } from './support/spawn-server.js';

/** An application's own tables, named as gengate's are, with other columns: gengate must never touch them. */
const APP_TABLES = `
create table public.users (id serial primary key, login text not null unique, password_hash text not null);
create table public.accounts (id serial primary key, owner integer not null references public.users(id), iban text not null);
create table public.tasks (id serial primary key, title text not null, done boolean not null default false);
create table public.transactions (id bigserial primary key, account integer not null references public.accounts(id), cents integer not null);
insert into public.users (login, password_hash) values ('alice', 'x'), ('bob', 'y');
insert into public.accounts (owner, iban) values (1, 'DE00 0000'), (2, 'FR00 0000');
insert into public.tasks (title) values ('write the report'), ('water the plants');
insert into public.transactions (account, cents) values (1, 1250), (2, -300);
`;

/** What the app's tables hold and look like: rows and column definitions. */
async function appSnapshot(c: pg.Pool): Promise<unknown> {
  const columns = await c.query(
    `select table_name, column_name, data_type from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`,
  );
  const rows: Record<string, unknown[]> = {};
  for (const t of ['users', 'accounts', 'tasks', 'transactions']) rows[t] = (await c.query(`select * from public.${t} order by id`)).rows;
  return { columns: columns.rows, rows };
}

describe.each(['gengate', 'gg_tenant_7'])('gengate in schema %s beside an app with its own users, accounts, tasks and transactions', (schema) => {
  let db: TestDatabase;
  let app: pg.Pool;
  let server: RunningServer;
  let hook: RecordingReceiver;
  let before: unknown;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = new pg.Pool({ connectionString: db.url, max: 3 });
    await app.query(APP_TABLES);
    before = await appSnapshot(app);
    hook = await startRecordingReceiver();
    const env: NodeJS.ProcessEnv = {
      DATABASE_URL: db.url,
      DATABASE_SCHEMA: schema,
      GENGATE_DATA_DIR: tempDataDir(),
      PORT: '0',
      SANDBOX_LATENCY_MS: '20',
      CALLBACK_ALLOW_PRIVATE: 'true',
      // The call limiter's leases and per-minute counts live in the schema too.
      PROVIDER_MAX_CONCURRENCY: 'sandbox=4',
      PROVIDER_MAX_PER_MINUTE: 'sandbox=1000',
    };
    server = await startServer(loadConfig(env), { logger: pino({ level: 'silent' }) });
  });

  afterAll(async () => {
    await server?.close();
    await hook?.close();
    await app?.end();
    await db?.drop();
  });

  it('runs a whole task cycle (key with limits, submission, worker, charge, signed callback, maintenance) and leaves the app tables as they were', async () => {
    const { api_key: adminKey, user_id: userId } = await server.gengate.admin.createUser({ email: `owner-${schema.replaceAll("_", "-")}@example.com`, credits: 100 });
    const api = (path: string, key: string, init: RequestInit = {}) =>
      fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });

    // A key with a rate limit: the counts are kept by rate-limiter-flexible in the schema's table.
    const created = await api('/api-keys', adminKey, { method: 'POST', body: JSON.stringify({ name: 'limited', rate_limit_per_minute: 50 }) });
    expect(created.status).toBe(201);
    const key = ((await created.json()) as { key: string }).key;

    const submitted = await api('/run/sandbox.echo-chat', key, { method: 'POST', body: JSON.stringify({ prompt: 'hello schema', callback_url: hook.url }) });
    expect(submitted.status).toBe(200);
    const { task_id: taskId } = (await submitted.json()) as { task_id: string };
    const task = await waitFor(
      async () => {
        const t = (await (await api(`/run/tasks/${taskId}`, key)).json()) as { status: string };
        return t.status === 'success' || t.status === 'fail' ? t : null;
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the task to end' },
    );
    expect(task.status).toBe('success');
    await waitFor(async () => (hook.receivedAt.has(taskId) ? true : null), { timeoutMs: 20_000, intervalMs: 50, what: 'the callback' });
    // The receiver has the POST before the sender has its answer and records the attempt: wait for that record.
    const attempts = await waitFor(
      async () => {
        const a = (await (await api(`/run/tasks/${taskId}/callbacks`, key)).json()) as { data: { delivered: boolean }[] };
        return a.data.some((d) => d.delivered) ? a : null;
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the delivered callback attempt to be recorded' },
    );
    expect(attempts.data.filter((a) => a.delivered)).toHaveLength(1);
    const balance = (await (await api('/billing/balance', key)).json()) as { credits: number };
    expect(balance.credits).toBeLessThan(100);

    const report = await runMaintenance(
      defaultMaintenanceSteps({ callbackAttemptRetentionDays: 30, lateWriteSeconds: 60, pendingTopupTtlSeconds: { manual: 3_600 } }),
      { db: app, schema, blobStore: new MemoryBlobStore(), logger: pino({ level: 'silent' }) },
    );
    for (const outcome of Object.values(report)) expect(typeof outcome).toBe('number');

    // gengate's rows are in its schema, named there.
    const q = async (sql: string, values: unknown[] = []) => (await app.query<{ n: number }>(sql, values)).rows[0]?.n;
    expect(await q(`select count(*)::int as n from ${schema}.users where id = $1`, [userId])).toBe(1);
    expect(await q(`select count(*)::int as n from ${schema}.tasks where id = $1 and status = 'success'`, [taskId])).toBe(1);
    expect(await q(`select count(*)::int as n from ${schema}.transactions where task_id = $1 and payment_method = 'usage'`, [taskId])).toBe(1);
    expect(await q(`select count(*)::int as n from ${schema}.gengate_rate_limits`)).toBeGreaterThan(0);
    expect(await q(`select count(*)::int as n from ${schema}.gengate_migrations`)).toBeGreaterThan(0);

    // The app's schema holds the app's four tables and nothing of gengate's.
    expect(await appSnapshot(app)).toEqual(before);
    const inPublic = await app.query<{ name: string }>(
      `select tablename as name from pg_tables where schemaname = 'public'
       union all select proname from pg_proc where pronamespace = 'public'::regnamespace
       union all select typname from pg_type t where typnamespace = 'public'::regnamespace and typtype <> 'c' and typrelid = 0 and typcategory <> 'A'
       order by 1`,
    );
    expect(inPublic.rows.map((r) => r.name)).toEqual(['accounts', 'tasks', 'transactions', 'users']);
    // A custom schema leaves no trace in the default one.
    const schemas = (await app.query<{ nspname: string }>(`select nspname from pg_namespace where nspname in ('gengate', $1) order by 1`, [schema])).rows;
    expect(schemas.map((r) => r.nspname)).toEqual([schema]);
  });
});
