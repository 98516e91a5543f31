/**
 * npm run bench:usage — GET /api/v1/usage over a history of 10 million tasks (docs/benchmarks.md, "Usage
 * over 10 million tasks"): a scratch database (DATABASE_URL's server, or an embedded PostgreSQL), the host
 * started as in production (its own process, which migrates the database), one user's tasks, usage
 * transactions and rollups generated in SQL (generate_series, not the API), then:
 *   - the rollups' write cost: settlements through gengate_finish_success with the rollup trigger on and off;
 *   - 200 sequential GET /api/v1/usage for the last 30 days grouped by day and model: p50/p95 (target p95 <= 200 ms).
 * The load average is printed beside every figure. Writes bench/results/<date>-<commit>-usage.json.
 *   -- --tasks 10000000   the history's size (default 10 million)
 *   -- --days 90          the days it spans, ending now (default 90)
 *   -- --requests 200     measured requests (default 200)
 *   -- --settlements 1000 settlements timed, half with the trigger (default 1000)
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { scratchDatabase } from '../scripts/support/scratch-database.js';
import { createKeys, hostEnv, startHost } from './sections/gengate.js';
import { generateHistory, settlementCost, usageReads } from './sections/usage.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const TASKS = arg('tasks', 10_000_000);
const DAYS = arg('days', 90);
const REQUESTS = arg('requests', 200);
const SETTLEMENTS = arg('settlements', 1000);
const load3 = () => loadavg().map((x) => x.toFixed(2)).join(' / ');
const f1 = (n: number) => n.toFixed(1);
const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const db = await scratchDatabase();
  const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  out(`usage bench ${commit} on ${cpus().length} cores, load average ${load3()}; ${TASKS.toLocaleString('en-US')} tasks over ${DAYS} days`);
  const record: Record<string, unknown> = { commit, tasks: TASKS, days: DAYS, load_average_start: loadavg() };
  const host = await startHost(hostEnv(db.url, false));
  try {
    const [key] = await createKeys(db.url, 1);
    if (!key) throw new Error('no key');
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    const userId = (await pool.query<{ user_id: string }>('select user_id from gengate.api_keys limit 1')).rows[0]?.user_id ?? '';
    await pool.end();

    out(`generating the history (load average ${load3()})`);
    const history = await generateHistory(db.url, userId, TASKS, DAYS, out);
    record['history'] = history;
    out(`  ${history.tasks.toLocaleString('en-US')} tasks and their usage transactions in ${f1(history.generateSeconds)} s; rollups rebuilt by migration 023's backfill in ${f1(history.rollupSeconds)} s: ${history.rollupRows.toLocaleString('en-US')} rollup rows (load average ${load3()})`);

    const cost = await settlementCost(db.url, userId, SETTLEMENTS);
    record['settlement'] = { ...cost, load_average: loadavg() };
    out(`rollups' write cost per settlement (gengate_finish_success, own transaction, ${cost.n} settlements alternating in blocks of 50):`);
    out(`  with the rollup trigger p50 ${f1(cost.withTrigger.p50Ms)} ms, p95 ${f1(cost.withTrigger.p95Ms)} ms, mean ${f1(cost.withTrigger.meanMs)} ms; without p50 ${f1(cost.withoutTrigger.p50Ms)} ms, p95 ${f1(cost.withoutTrigger.p95Ms)} ms, mean ${f1(cost.withoutTrigger.meanMs)} ms; difference of the means ${f1(cost.withTrigger.meanMs - cost.withoutTrigger.meanMs)} ms (load average ${load3()})`);

    const reads = await usageReads(host.url, key, REQUESTS);
    record['usage_30d_day_model'] = { ...reads, load_average: loadavg() };
    out(`GET /api/v1/usage, last 30 days, group_by=day,model, ${reads.n} sequential requests: p50 ${f1(reads.p50Ms)} ms, p95 ${f1(reads.p95Ms)} ms, max ${f1(reads.maxMs)} ms; ${reads.rows} rows, ${reads.tasksCounted.toLocaleString('en-US')} tasks counted [target p95 <= 200 ms] (load average ${load3()})`);
    const wide = await usageReads(host.url, key, Math.min(REQUESTS, 50), `group_by=key,model&from=${new Date(Date.now() - 365 * 86_400_000).toISOString()}`);
    record['usage_365d_key_model'] = { ...wide, load_average: loadavg() };
    out(`GET /api/v1/usage, 365 days (the whole history), group_by=key,model, ${wide.n} requests: p50 ${f1(wide.p50Ms)} ms, p95 ${f1(wide.p95Ms)} ms; ${wide.tasksCounted.toLocaleString('en-US')} tasks counted (load average ${load3()})`);
  } finally {
    await host.stop();
    await db.close();
  }
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().slice(0, 10)}-${commit}-usage${TASKS === 10_000_000 ? '' : `-${TASKS}`}.json`);
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  out(`wrote ${file}; load average at the end ${load3()}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
