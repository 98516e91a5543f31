import { randomUUID } from 'node:crypto';
import { LATENCY_BUCKETS, latencyBucketOf } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUsageFolder } from '../src/jobs/usage-folder.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { PgUsageReader } from '../src/postgres/pg-usage-reader.js';
import { foldUsagePending } from '../src/postgres/sql/maintenance.js';

const S = 'gengate';
const DAY = { from: new Date('2026-11-20T00:00:00Z'), to: new Date('2026-11-21T00:00:00Z') };

/** Migration 032: an end appends its usage to usage_rollup_pending; a fold moves it into the hourly and daily rollups. */
describe('usage pending rows and their fold (032)', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let user: string;
  let key: string;
  let reader: PgUsageReader;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    await runMigrations(pool, S);
    user = randomUUID();
    key = randomUUID();
    await pool.query(`insert into ${S}.users (id, email) values ($1, $2)`, [user, `${user}@example.com`]);
    await pool.query(`insert into ${S}.api_keys (id, user_id, name, secret_hash, mask) values ($1, $2, 'ci key', $3, 'gg_…')`, [key, user, randomUUID()]);
    reader = new PgUsageReader(pool, S);
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  /** A settlement as gengate_finish_success commits it: the ended task and its usage deduction in one transaction. */
  const settle = async (o: { model: string; status: 'success' | 'fail'; chargedMicro: number; latencyMs: number; inputTokens: number; finishedAt: string }) => {
    const c = await pool.connect();
    try {
      const id = randomUUID();
      await c.query('begin');
      await c.query(
        `insert into ${S}.tasks (id, user_id, api_key_id, model_id, modality, status, request, quoted_micro, quoted_cost_micro, charged_micro, usage, created_at, finished_at)
         values ($1, $2, $3, $4, 'chat', $5, '{}', 5000000, 5000000, $6, $7, $8::timestamptz - make_interval(secs => $9::double precision / 1000), $8)`,
        [id, user, key, o.model, o.status, o.status === 'success' ? o.chargedMicro : null, JSON.stringify({ inputTokens: o.inputTokens }), o.finishedAt, o.latencyMs],
      );
      if (o.status === 'success') {
        await c.query(`insert into ${S}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, task_id) values ($1, $2, $3, 0, 'usage', 'completed', $4)`, [
          randomUUID(),
          user,
          -o.chargedMicro,
          id,
        ]);
      }
      await c.query('commit');
    } finally {
      c.release();
    }
  };
  const pending = async () => Number((await pool.query<{ n: string }>(`select count(*) as n from ${S}.usage_rollup_pending`)).rows[0]?.n);
  const hist = (...ms: number[]) => {
    const h = Array.from({ length: LATENCY_BUCKETS }, () => 0);
    for (const m of ms) h[latencyBucketOf(m)] = (h[latencyBucketOf(m)] ?? 0) + 1;
    return h;
  };

  it('counts an end at once, from its pending row, and the same after a fold has moved it into the rollups', async () => {
    await settle({ model: 'openai.gpt-5', status: 'success', chargedMicro: 1_500_000, latencyMs: 1_500, inputTokens: 100, finishedAt: '2026-11-20T10:15:00Z' });
    await settle({ model: 'openai.gpt-5', status: 'fail', chargedMicro: 0, latencyMs: 40, inputTokens: 0, finishedAt: '2026-11-20T10:20:00Z' });
    // The ends wrote no rollup row: each appended one pending row.
    expect(await pending()).toBe(2);
    expect(Number((await pool.query<{ n: string }>(`select count(*) as n from ${S}.usage_rollups`)).rows[0]?.n)).toBe(0);
    const unfolded = await reader.read({ userId: user, ...DAY, groupBy: ['model'] });
    expect(unfolded.map((r) => r.counts)).toEqual([
      { creditsMicro: 1_500_000, tasks: 2, failures: 1, inputTokens: 100, outputTokens: 0, images: 0, videoMs: 0, latencyHistogram: hist(1_500) },
    ]);

    expect(await foldUsagePending(pool, S)).toBe(2);
    expect(await pending()).toBe(0);
    expect(await reader.read({ userId: user, ...DAY, groupBy: ['model'] })).toEqual(unfolded);
    const daily = await pool.query(`select day::text, tasks::int, credits_micro::int from ${S}.usage_rollups_daily where user_id = $1`, [user]);
    expect(daily.rows).toEqual([{ day: '2026-11-20', tasks: 2, credits_micro: 1_500_000 }]);

    // A later fold into the same hour adds to the row, its histogram element by element.
    await settle({ model: 'openai.gpt-5', status: 'success', chargedMicro: 500_000, latencyMs: 1_500, inputTokens: 10, finishedAt: '2026-11-20T10:30:00Z' });
    await settle({ model: 'openai.gpt-5', status: 'success', chargedMicro: 250_000, latencyMs: 9, inputTokens: 1, finishedAt: '2026-11-20T10:31:00Z' });
    expect(await foldUsagePending(pool, S)).toBe(2);
    const hourly = await pool.query(`select hour, tasks::int, failures::int, credits_micro::int, input_tokens::int, latency_hist from ${S}.usage_rollups where user_id = $1`, [user]);
    expect(hourly.rows).toEqual([
      { hour: new Date('2026-11-20T10:00:00Z'), tasks: 4, failures: 1, credits_micro: 2_250_000, input_tokens: 111, latency_hist: hist(1_500, 1_500, 9) },
    ]);
    expect((await reader.read({ userId: user, ...DAY, groupBy: ['day'] }))[0]?.counts).toMatchObject({ tasks: 4, creditsMicro: 2_250_000 });
  });

  it('runs one fold at a time: a fold that finds one running leaves the rows to it', async () => {
    await settle({ model: 'fal.flux', status: 'success', chargedMicro: 100_000, latencyMs: 700, inputTokens: 0, finishedAt: '2026-11-20T11:00:00Z' });
    const running = await pool.connect();
    try {
      await running.query('begin');
      expect((await running.query<{ n: number }>(`select ${S}.gengate_fold_usage_pending() as n`)).rows[0]?.n).toBe(1);
      // The first fold has not committed: the second finds the lock taken and folds nothing (-1, reported as 0).
      expect((await pool.query<{ n: number }>(`select ${S}.gengate_fold_usage_pending() as n`)).rows[0]?.n).toBe(-1);
      expect(await foldUsagePending(pool, S)).toBe(0);
      await running.query('commit');
    } finally {
      running.release();
    }
    expect(await pending()).toBe(0);
    expect((await reader.read({ userId: user, ...DAY, groupBy: ['model'] })).map((r) => [r.modelId, r.counts.tasks])).toEqual([
      ['fal.flux', 1],
      ['openai.gpt-5', 4],
    ]);
  });

  it('is folded by a worker process every few seconds (startUsageFolder)', async () => {
    await settle({ model: 'fal.flux', status: 'success', chargedMicro: 100_000, latencyMs: 700, inputTokens: 0, finishedAt: '2026-11-20T11:05:00Z' });
    let folded!: (rows: number) => void;
    const first = new Promise<number>((resolve) => (folded = resolve));
    const folder = startUsageFolder(pool, S, { intervalMs: 10, logger: pino({ level: 'silent' }), onFolded: (rows) => rows > 0 && folded(rows) });
    try {
      expect(await first).toBe(1);
    } finally {
      await folder.stop();
    }
    expect(await pending()).toBe(0);
  });
});
