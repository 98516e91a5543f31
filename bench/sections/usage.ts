import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { memberBackfillSql } from '../../packages/host/src/postgres/migrations/027-usage-members-and-key-period-change.js';
import { percentile } from '../support/process-stats.js';

const S = 'gengate';
/** The models of the generated history: 8 models of 4 providers, with what each produces. */
const MODELS = [
  ['openai.gpt-5', 'chat'], ['openai.gpt-image-2', 'image'], ['anthropic.claude-sonnet-5-5', 'chat'], ['anthropic.claude-haiku-4-5', 'chat'],
  ['google.veo-3', 'video'], ['google.gemini-3.5-flash', 'chat'], ['fal.flux-dev', 'image'], ['fal.kling-v2.1-master', 'video'],
] as const;

export interface GeneratedHistory {
  readonly tasks: number;
  readonly days: number;
  readonly keys: number;
  readonly rollupRows: number;
  readonly generateSeconds: number;
  readonly rollupSeconds: number;
}

/**
 * `total` ended tasks of one user over the `days` days before now, spread over 4 of its API keys and 8
 * models, 3% failures, latencies from 0.2 s to 3 min, each success with its usage transaction: written by
 * generate_series in chunks (not through the API), the secondary indexes of tasks and transactions and
 * the rollup trigger off meanwhile, then the rollups built by migration 023's own backfill statement.
 */
export async function generateHistory(url: string, userId: string, total: number, days: number, log: (line: string) => void): Promise<GeneratedHistory> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    const keyIds = (await pool.query<{ id: string }>(`select id from ${S}.api_keys where user_id = $1`, [userId])).rows.map((r) => r.id);
    for (let i = keyIds.length; i < 4; i += 1) {
      const { rows } = await pool.query<{ id: string }>(
        `insert into ${S}.api_keys (id, user_id, name, secret_hash, mask) values (gen_random_uuid(), $1, $2, md5(random()::text), 'gg_live_…') returning id`,
        [userId, `bench key ${i}`],
      );
      keyIds.push(rows[0]?.id ?? '');
    }
    await pool.query(`alter database ${pg.escapeIdentifier(new URL(url).pathname.slice(1))} set synchronous_commit = off`);
    await pool.query(`alter table ${S}.tasks disable trigger tasks_usage_rollup_inserted`);
    // Bulk load as an operator would: the secondary indexes dropped meanwhile and built again after (same definitions).
    const { rows: indexes } = await pool.query<{ name: string; def: string }>(
      `select indexname as name, indexdef as def from pg_indexes where schemaname = $1 and tablename in ('tasks', 'transactions')
         and indexname not in (select conname from pg_constraint where contype in ('p', 'u'))`,
      [S],
    );
    for (const i of indexes) await pool.query(`drop index ${S}.${pg.escapeIdentifier(i.name)}`);
    const models = `(array[${MODELS.map(([m]) => `'${m}'`).join(',')}])`;
    const modalities = `(array[${MODELS.map(([, k]) => `'${k}'`).join(',')}])`;
    const keys = `(array[${keyIds.map((k) => `'${k}'::uuid`).join(',')}])`;
    const chunk = 1_000_000;
    const started = performance.now();
    for (let from = 1; from <= total; from += chunk) {
      const to = Math.min(total, from + chunk - 1);
      // Task i (id: i in hex, so the indexes fill in order): finished at an even spread over the days, model i % 8, key i % 4 (i % 13 = 0 without a key), failed when i % 33 = 0.
      await pool.query(`
        insert into ${S}.tasks (id, user_id, api_key_id, model_id, modality, status, request, quoted_micro, quoted_cost_micro, charged_micro, cost_micro,
            usage, error_message, admitted, created_at, started_at, finished_at)
        select lpad(to_hex(i), 32, '0')::uuid, $1, case when i % 13 = 0 then null else ${keys}[1 + i % 4] end, ${models}[1 + i % 8], ${modalities}[1 + i % 8],
          case when i % 33 = 0 then 'fail' else 'success' end, '{}', 2000000, 2000000,
          case when i % 33 = 0 then null else 500000 + (i % 7) * 100000 end, case when i % 33 = 0 then null else 400000 end,
          case when i % 33 = 0 then null
               when ${modalities}[1 + i % 8] = 'chat' then jsonb_build_object('inputTokens', 100 + i % 900, 'outputTokens', 50 + i % 400)
               when ${modalities}[1 + i % 8] = 'image' then jsonb_build_object('images', 1 + i % 2)
               else jsonb_build_object('videoSeconds', 5 + i % 6) end,
          case when i % 33 = 0 then 'bench failure' end, true, f - make_interval(secs => lat), f - make_interval(secs => lat), f
        from (select i, now() - make_interval(secs => ($3::double precision * 86400 * i) / $2) as f,
                     0.2 + ((i * 7919) % 1000)^2 / 1000000.0 * 180 as lat
              from generate_series($4::bigint, $5::bigint) as i) g`, [userId, total, days, from, to]);
      await pool.query(`
        insert into ${S}.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, task_id, description, created_at)
        select ('f' || lpad(to_hex(i), 31, '0'))::uuid, $1, -(500000 + (i % 7) * 100000), (500000 + (i % 7) * 100000) / 100, 'usage', 'completed', lpad(to_hex(i), 32, '0')::uuid,
          'bench generation', now() - make_interval(secs => ($3::double precision * 86400 * i) / $2)
        from generate_series($4::bigint, $5::bigint) as i where i % 33 <> 0`, [userId, total, days, from, to]);
      log(`    ${to.toLocaleString('en-US')} tasks (${Math.round((performance.now() - started) / 1000)} s)`);
    }
    for (const i of indexes) await pool.query(i.def);
    log(`    indexes built again (${Math.round((performance.now() - started) / 1000)} s)`);
    const generateSeconds = (performance.now() - started) / 1000;
    const r0 = performance.now();
    await pool.query(`delete from ${S}.usage_rollups where user_id = $1`, [userId]);
    await pool.query(`delete from ${S}.usage_rollups_daily where user_id = $1`, [userId]);
    await pool.query(memberBackfillSql(S));
    const rollupSeconds = (performance.now() - r0) / 1000;
    await pool.query(`alter table ${S}.tasks enable trigger tasks_usage_rollup_inserted`);
    await pool.query(`vacuum analyze ${S}.usage_rollups`);
    await pool.query(`vacuum analyze ${S}.usage_rollups_daily`);
    await pool.query(`analyze ${S}.tasks`);
    const rollupRows = Number((await pool.query<{ n: string }>(`select count(*) as n from ${S}.usage_rollups where user_id = $1`, [userId])).rows[0]?.n ?? 0);
    return { tasks: total, days, keys: keyIds.length, rollupRows, generateSeconds, rollupSeconds };
  } finally {
    await pool.end();
  }
}

export interface SettlementCost {
  readonly n: number;
  readonly withTrigger: { readonly p50Ms: number; readonly p95Ms: number; readonly meanMs: number };
  readonly withoutTrigger: { readonly p50Ms: number; readonly p95Ms: number; readonly meanMs: number };
}

/**
 * The rollups' write cost: `n` settlements through gengate_finish_success (each its own transaction, so
 * the deferred trigger runs inside the timed COMMIT), half with the rollup trigger on and half with it
 * off, alternating in blocks of 50, on the same table of 10 million tasks.
 */
export async function settlementCost(url: string, userId: string, n: number): Promise<SettlementCost> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ id: string }>(`
      with t as (
        insert into ${S}.tasks (id, user_id, model_id, modality, status, request, quoted_micro, quoted_cost_micro, admitted, started_at)
        select gen_random_uuid(), $1, 'openai.gpt-5', 'chat', 'generating', '{}', 1000000, 1000000, true, now() from generate_series(1, $2) returning id)
      insert into ${S}.holds (task_id, user_id, amount_micro, state) select id, $1, 1000000, 'held' from t returning task_id as id`, [userId, n]);
    await client.query(`update ${S}.accounts set held_micro = held_micro + $2, balance_micro = balance_micro + $2 where user_id = $1`, [userId, n * 1_000_000]);
    const on: number[] = [];
    const off: number[] = [];
    const settle = async (id: string) => {
      const t0 = performance.now();
      await client.query(
        `select ${S}.gengate_finish_success($1, '[]', '[]', 800000, 600000, null, '{"inputTokens": 120, "outputTokens": 80}', '{}', now(), 'bench settlement', gen_random_uuid(),
           10000, null, null, null, null)`,
        [id],
      );
      return performance.now() - t0;
    };
    for (let i = 0; i < rows.length; i += 50) {
      const withTrigger = (i / 50) % 2 === 0;
      await client.query(`alter table ${S}.tasks ${withTrigger ? 'enable' : 'disable'} trigger tasks_usage_rollup_ended`);
      for (const r of rows.slice(i, i + 50)) (withTrigger ? on : off).push(await settle(r.id));
    }
    await client.query(`alter table ${S}.tasks enable trigger tasks_usage_rollup_ended`);
    const stats = (xs: number[]) => ({ p50Ms: percentile(xs, 50), p95Ms: percentile(xs, 95), meanMs: xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length) });
    return { n: rows.length, withTrigger: stats(on), withoutTrigger: stats(off) };
  } finally {
    client.release();
    await pool.end();
  }
}

export interface UsageReadCost {
  readonly n: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  readonly rows: number;
  readonly tasksCounted: number;
}

/** `n` sequential GET /api/v1/usage over the last 30 days grouped by day and model (after 10 unmeasured ones). */
export async function usageReads(baseUrl: string, key: string, n: number, query = 'group_by=day,model'): Promise<UsageReadCost> {
  const url = `${baseUrl}/api/v1/usage?${query}`;
  const headers = { authorization: `Bearer ${key}` };
  const get = async () => {
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`GET /usage answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { data: unknown[]; totals: { tasks: number } };
  };
  for (let i = 0; i < 10; i += 1) await get();
  const times: number[] = [];
  let last: { data: unknown[]; totals: { tasks: number } } | null = null;
  for (let i = 0; i < n; i += 1) {
    const t0 = performance.now();
    last = await get();
    times.push(performance.now() - t0);
  }
  return { n, p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), maxMs: Math.max(...times), rows: last?.data.length ?? 0, tasksCounted: last?.totals.tasks ?? 0 };
}
