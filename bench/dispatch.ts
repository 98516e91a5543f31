/**
 * npm run bench:dispatch — only the dispatch figures of `npm run bench` (submit -> adapter called under a
 * fixed submission rate, docs/benchmarks.md), each topology on fresh processes: one `--role all` process,
 * and an `--role api` process beside an `--role worker` process, with where the time went.
 *   -- --quick                 shorter loads
 *   -- --rate 200 --seconds 10 the load (submissions/s, seconds)
 *   -- --topology all          one topology only (all | api+worker)
 *   -- --users 50              spread the submissions over that many users (default 1: one account row)
 *   -- --concurrency 32        WORKER_CONCURRENCY (default: the host's, 32)
 *   -- --statements            time every statement in the host processes and print the slowest in total
 *                              (bench/probes/statement-probe.mjs; a diagnosis, not a record)
 *   -- --paced                 an open-loop load (one submission every 1/rate s) instead of autocannon's
 *                              per-connection budgets (bursts, and no faster than 20 connections / latency)
 *   -- --base DIR              start another checkout's host (e.g. main's, for an A/B) with this checkout's probes
 *   -- --steps                 where each dispatch's time goes, step by step, from the processes' own moments
 *                              (bench/probes/dispatch-probe.mjs; a diagnosis, not a record)
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { scratchDatabase } from '../scripts/support/scratch-database.js';
import { dispatchUnderLoad, startTopology, type Topology } from './sections/dispatch.js';
import { createKeys, hostEnv } from './sections/gengate.js';
import { PROBE_DIR } from './sections/memory.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const quick = process.argv.includes('--quick');
const rate = Number(arg('rate') ?? 200);
const seconds = Number(arg('seconds') ?? (quick ? 3 : 10));
const users = Number(arg('users') ?? 1);
const concurrency = arg('concurrency');
const statements = process.argv.includes('--statements');
const steps = process.argv.includes('--steps');
const base = arg('base');
const paced = process.argv.includes('--paced');
const topologies: Topology[] = arg('topology') ? [arg('topology') as Topology] : ['all', 'api+worker'];
const load3 = () => loadavg().map((x) => x.toFixed(2)).join(' / ');

interface StatementFile {
  role: string | null;
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  statements: { text: string; n: number; meanMs: number; totalMs: number; maxMs: number }[];
}

function printStatements(pid: number, role: string): void {
  const file = join(PROBE_DIR, `statements-${pid}.json`);
  if (!existsSync(file)) return;
  const s = JSON.parse(readFileSync(file, 'utf8')) as StatementFile;
  process.stdout.write(`  ${role} (pid ${pid}): event-loop delay p50 ${s.eventLoopDelayMs.p50} ms, p99 ${s.eventLoopDelayMs.p99} ms, max ${s.eventLoopDelayMs.max} ms\n`);
  process.stdout.write(`       n   mean ms  total ms  max ms  statement\n`);
  for (const r of s.statements.slice(0, 10)) process.stdout.write(`  ${String(r.n).padStart(6)} ${r.meanMs.toFixed(2).padStart(9)} ${String(r.totalMs).padStart(9)} ${String(r.maxMs).padStart(7)}  ${r.text}\n`);
}

interface DispatchFile {
  wakes: [string, number, number][];
  notified: number[];
  fetches: [number, number, string[]][];
  generating: [string, number][];
}

/**
 * Each dispatch step by step (ms, the machine's clock, from dispatch-probe.mjs in every host process):
 * `notify` the submission's write (submission + wake-up NOTIFY) sent by the API -> the NOTIFY received by
 * the worker (the i-th received matched to the i-th answered wake-up: PostgreSQL delivers them in commit
 * order); `toFetch` NOTIFY received -> the fetch that claimed the task sent (negative: a fetch already
 * under way or a poll took it); `fetch` that fetch's round trip; `toGenerating` fetch returned -> the
 * `generating` update sent (the adapter is called after its answer); `total` write sent -> `generating` sent.
 */
function printSteps(pids: readonly number[]): void {
  const files = pids.map((pid) => join(PROBE_DIR, `dispatch-${pid}.json`)).filter((f) => existsSync(f)).map((f) => JSON.parse(readFileSync(f, 'utf8')) as DispatchFile);
  const wakes = files.flatMap((f) => f.wakes).sort((a, b) => a[2] - b[2]);
  const notified = files.flatMap((f) => f.notified).sort((a, b) => a - b);
  const fetchOf = new Map<string, [number, number]>();
  for (const f of files) for (const [sent, returned, ids] of f.fetches) for (const id of ids) fetchOf.set(id, [sent, returned]);
  const generatingOf = new Map<string, number>();
  for (const f of files) for (const [id, sent] of f.generating) if (!generatingOf.has(id)) generatingOf.set(id, sent);
  const cols: Record<'notify' | 'toFetch' | 'fetch' | 'toGenerating' | 'total', number[]> = { notify: [], toFetch: [], fetch: [], toGenerating: [], total: [] };
  const matched = wakes.length === notified.length;
  wakes.forEach(([id, sent], i) => {
    const fetch = fetchOf.get(id);
    const gen = generatingOf.get(id);
    const heard = matched ? notified[i] : notified.find((t) => t >= sent);
    if (fetch === undefined || gen === undefined) return;
    if (heard !== undefined) {
      cols.notify.push(heard - sent);
      cols.toFetch.push(fetch[0] - heard);
    }
    cols.fetch.push(fetch[1] - fetch[0]);
    cols.toGenerating.push(gen - fetch[1]);
    cols.total.push(gen - sent);
  });
  const pct = (xs: number[], q: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? (s[Math.min(s.length - 1, Math.floor((q / 100) * s.length))] ?? NaN) : NaN;
  };
  process.stdout.write(`  steps (ms; ${wakes.length} wake-ups, ${notified.length} NOTIFYs received${matched ? ', matched in order' : ', matched to the first after the write'}):\n`);
  for (const [k, xs] of Object.entries(cols)) process.stdout.write(`    ${k.padEnd(13)} p50 ${pct(xs, 50).toFixed(1).padStart(8)}  p90 ${pct(xs, 90).toFixed(1).padStart(8)}  p99 ${pct(xs, 99).toFixed(1).padStart(8)}  (n=${xs.length})\n`);
}

async function main(): Promise<void> {
  if (statements) process.env['GENGATE_BENCH_STATEMENTS'] = '1';
  if (steps) process.env['GENGATE_BENCH_DISPATCH'] = '1';
  const db = await scratchDatabase();
  process.stdout.write(`dispatch bench${base ? ` of ${base}` : ''} on ${cpus().length} cores, load average ${load3()}; ${rate}/s for ${seconds} s, ${users} user(s)${concurrency ? `, WORKER_CONCURRENCY ${concurrency}` : ''}${paced ? ', paced (open loop)' : ''}\n`);
  try {
    let keys: string[] = [];
    for (const [i, topology] of topologies.entries()) {
      const procs = await startTopology(topology, { ...hostEnv(db.url, true), ...(concurrency ? { WORKER_CONCURRENCY: concurrency } : {}) }, base);
      try {
        // The first host to start migrates the database; the users come after.
        if (keys.length === 0) keys = await createKeys(db.url, topologies.length * users);
        await new Promise((r) => setTimeout(r, 500));
        const d = await dispatchUnderLoad(topology, procs, db.url, keys.slice(i * users, (i + 1) * users), { rate, seconds, paced });
        const { samples: _samples, ...shown } = d;
        process.stdout.write(`${topology}: p50 ${d.p50Ms.toFixed(1)} ms, p99 ${d.p99Ms.toFixed(1)} ms (n=${d.n})\n${JSON.stringify(shown)}\n`);
      } finally {
        await procs.stop();
      }
      for (const p of procs.all) printStatements(p.host.pid, p.role);
      if (steps) printSteps(procs.all.map((p) => p.host.pid));
    }
  } finally {
    await db.close();
  }
  process.stdout.write(`load average at the end ${load3()}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
