import { randomUUID } from 'node:crypto';
import { LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKETS, latencyBucketOf } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../src/postgres/migrate.js';
import { LATENCY_BOUNDS_SQL, LATENCY_BUCKET_COUNT } from '../src/postgres/migrations/023-usage-rollups.js';
import { PgUsageReader } from '../src/postgres/pg-usage-reader.js';
import { MIGRATIONS_AT_F04FA3B } from './support/migrations-at-f04fa3b.js';

const S = 'gengate';

/** Migrations before 023 applied as runMigrations applies them: a database as today's main leaves it. */
async function databaseBefore023(pool: pg.Pool): Promise<void> {
  await pool.query(`create schema ${S}; create table ${S}.gengate_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`);
  for (const m of MIGRATIONS_AT_F04FA3B.filter((x) => x.version < 23)) {
    await pool.query(`begin; ${m.up(S)}; insert into ${S}.gengate_migrations (version, name) values (${m.version}, '${m.name.replaceAll("'", "''")}'); commit;`);
  }
}

interface Seed {
  readonly user: string;
  readonly key: string;
}

async function seedUser(pool: pg.Pool): Promise<Seed> {
  const user = randomUUID();
  const key = randomUUID();
  await pool.query(`insert into ${S}.users (id, email) values ($1, $2)`, [user, `${user}@example.com`]);
  await pool.query(`insert into ${S}.accounts (user_id, balance_micro) values ($1, 100000000)`, [user]);
  await pool.query(`insert into ${S}.api_keys (id, user_id, name, secret_hash, mask) values ($1, $2, 'ci key', $3, 'gg_…')`, [key, user, randomUUID()]);
  return { user, key };
}

/** An ended task as the settlement functions leave it: the task row and, for a success, its usage transaction. */
async function endedTask(
  pool: pg.Pool,
  s: Seed,
  o: { model: string; status: 'success' | 'fail'; chargedMicro: number; latencyMs: number; usage: object | null; finishedAt: string; key?: boolean },
): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `insert into ${S}.tasks (id, user_id, api_key_id, model_id, modality, status, request, quoted_micro, quoted_cost_micro, charged_micro, usage, created_at, finished_at)
     values ($1, $2, $3, $4, 'chat', $5, '{}', $6, $6, $7, $8, $9::timestamptz - make_interval(secs => $10::double precision / 1000), $9)`,
    [id, s.user, o.key === false ? null : s.key, o.model, o.status, 5_000_000, o.status === 'success' ? o.chargedMicro : null, o.usage === null ? null : JSON.stringify(o.usage), o.finishedAt, o.latencyMs],
  );
  if (o.status === 'success') {
    await pool.query(
      `insert into ${S}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, task_id) values ($1, $2, $3, 0, 'usage', 'completed', $4)`,
      [randomUUID(), s.user, -o.chargedMicro, id],
    );
  }
  return id;
}

describe('migration 023: usage rollups', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('writes the same latency bounds as core, and width_bucket puts every value where latencyBucketOf does', async () => {
    expect(LATENCY_BUCKET_COUNT).toBe(LATENCY_BUCKETS);
    expect(LATENCY_BOUNDS_SQL).toBe(`array[${LATENCY_BUCKET_BOUNDS_MS.join(',')}]::bigint[]`);
    const samples = [0, ...LATENCY_BUCKET_BOUNDS_MS.flatMap((b) => [b - 1, b, b + 1]), 10 ** 10];
    const { rows } = await pool.query<{ b: number }>(`select width_bucket(x, ${LATENCY_BOUNDS_SQL}) as b from unnest($1::bigint[]) with ordinality as u(x, i) order by i`, [samples]);
    expect(rows.map((r) => r.b)).toEqual(samples.map(latencyBucketOf));
  });

  it('backfills the tasks that ended before it, then keeps the rollups at each settlement (once, never for a rolled-back one)', async () => {
    await databaseBefore023(pool);
    const a = await seedUser(pool);
    const b = await seedUser(pool);
    const at = '2026-11-20T10:15:00Z';
    await endedTask(pool, a, { model: 'openai.gpt-5', status: 'success', chargedMicro: 1_500_000, latencyMs: 1_500, usage: { inputTokens: 100, outputTokens: 250 }, finishedAt: at });
    await endedTask(pool, a, { model: 'openai.gpt-5', status: 'success', chargedMicro: 500_000, latencyMs: 3_000, usage: { inputTokens: 10, outputTokens: 20 }, finishedAt: '2026-11-20T10:59:59Z' });
    await endedTask(pool, a, { model: 'openai.gpt-5', status: 'fail', chargedMicro: 0, latencyMs: 50, usage: null, finishedAt: at });
    await endedTask(pool, a, { model: 'fal.veo3-fast', status: 'success', chargedMicro: 9_000_000, latencyMs: 90_000, usage: { videoSeconds: 8.5 }, finishedAt: '2026-11-20T11:00:00Z', key: false });
    await endedTask(pool, b, { model: 'openai.gpt-5', status: 'success', chargedMicro: 7_000_000, latencyMs: 10, usage: { inputTokens: 1 }, finishedAt: at });
    // A task still running is not usage yet.
    await pool.query(`insert into ${S}.tasks (id, user_id, model_id, modality, status, request, quoted_micro, quoted_cost_micro) values ($1, $2, 'openai.gpt-5', 'chat', 'generating', '{}', 1, 1)`, [randomUUID(), a.user]);

    const { applied } = await runMigrations(pool, S);
    expect(applied).toContain(23);
    const rollups = await pool.query(
      `select hour, api_key_id, model_id, provider, credits_micro::int, tasks::int, failures::int, input_tokens::int, output_tokens::int, images::int, video_ms::int, latency_hist
       from ${S}.usage_rollups where user_id = $1 order by hour, model_id`,
      [a.user],
    );
    const hist = (...ms: number[]) => {
      const h = Array.from({ length: LATENCY_BUCKETS }, () => 0);
      for (const m of ms) h[latencyBucketOf(m)] = (h[latencyBucketOf(m)] ?? 0) + 1;
      return h;
    };
    expect(rollups.rows).toEqual([
      { hour: new Date('2026-11-20T10:00:00Z'), api_key_id: a.key, model_id: 'openai.gpt-5', provider: 'openai', credits_micro: 2_000_000, tasks: 3, failures: 1,
        input_tokens: 110, output_tokens: 270, images: 0, video_ms: 0, latency_hist: hist(1_500, 3_000) },
      { hour: new Date('2026-11-20T11:00:00Z'), api_key_id: '00000000-0000-0000-0000-000000000000', model_id: 'fal.veo3-fast', provider: 'fal', credits_micro: 9_000_000,
        tasks: 1, failures: 0, input_tokens: 0, output_tokens: 0, images: 0, video_ms: 8_500, latency_hist: hist(90_000) },
    ]);

    const daily = await pool.query(`select day::text, sum(tasks)::int as tasks, sum(credits_micro)::int as credits from ${S}.usage_rollups_daily where user_id = $1 group by day`, [a.user]);
    expect(daily.rows).toEqual([{ day: '2026-11-20', tasks: 4, credits: 11_000_000 }]);

    // After the migration: the trigger adds a settled task at COMMIT, reading the usage deduction written after the task update.
    const reader = new PgUsageReader(pool, S);
    const totalOf = async () => (await reader.read({ userId: a.user, from: new Date('2026-11-20T00:00:00Z'), to: new Date('2026-11-21T00:00:00Z'), groupBy: ['day'] }))[0]?.counts;
    const before = await totalOf();
    const settle = async (commit: boolean) => {
      const id = randomUUID();
      await pool.query(`insert into ${S}.tasks (id, user_id, api_key_id, model_id, modality, status, request, quoted_micro, quoted_cost_micro, created_at)
        values ($1, $2, $3, 'openai.gpt-5', 'chat', 'generating', '{}', 5000000, 5000000, '2026-11-20T12:00:00Z')`, [id, a.user, a.key]);
      const c = await pool.connect();
      try {
        await c.query('begin');
        await c.query(`update ${S}.tasks set status = 'success', charged_micro = 250000, usage = '{"inputTokens": 5, "outputTokens": 7}', finished_at = '2026-11-20T12:00:02Z' where id = $1`, [id]);
        await c.query(`insert into ${S}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, task_id) values ($1, $2, -250000, 2500, 'usage', 'completed', $3)`, [randomUUID(), a.user, id]);
        // A later update of the ended row in the same transaction does not count it twice.
        await c.query(`update ${S}.tasks set status = 'success' where id = $1`, [id]);
        await c.query(commit ? 'commit' : 'rollback');
      } finally {
        c.release();
      }
    };
    await settle(false);
    expect(await totalOf()).toEqual(before);
    await settle(true);
    const after = await totalOf();
    expect(after).toMatchObject({ tasks: (before?.tasks ?? 0) + 1, creditsMicro: (before?.creditsMicro ?? 0) + 250_000, inputTokens: (before?.inputTokens ?? 0) + 5 });
    // A range with partial days at both ends (hourly rows) around a whole day (daily rows) answers as the hourly rows alone do.
    const mixed = { userId: a.user, from: new Date('2026-11-19T22:00:00Z'), to: new Date('2026-11-21T03:00:00Z') };
    const byModel = await reader.read({ ...mixed, groupBy: ['model'] });
    const byHour = await reader.read({ ...mixed, groupBy: ['hour'] });
    expect(byModel.reduce((n, r) => n + r.counts.tasks, 0)).toBe(byHour.reduce((n, r) => n + r.counts.tasks, 0));
    expect(byModel.reduce((n, r) => n + r.counts.creditsMicro, 0)).toBe(byHour.reduce((n, r) => n + r.counts.creditsMicro, 0));
    expect(byModel.reduce((n, r) => n + r.counts.tasks, 0)).toBe(after?.tasks);
    // The other user's rollups were never touched by the first user's settlements.
    const bRows = await reader.read({ userId: b.user, from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z'), groupBy: ['model'] });
    expect(bRows.map((r) => [r.modelId, r.counts.tasks, r.counts.creditsMicro])).toEqual([['openai.gpt-5', 1, 7_000_000]]);
  });
});
