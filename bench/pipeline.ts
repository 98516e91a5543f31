/**
 * npm run bench:pipeline — the full pipeline's host CPU per task (submit + execute + settle, zero-latency
 * sandbox chat, worker on, 10 connections; `npm run bench`'s pipeline figure) and its tasks/s, as an A/B.
 *
 *   npm run bench:pipeline -- [--base DIR] [--rounds N] [--tasks T]
 *
 * `--base DIR`: another checkout (built, with its node_modules) whose host is measured beside this one's,
 * each on its own scratch database and its own result-file directory, in alternating order round by round
 * (A B, B A, ...) so that a drift in the machine's load falls on both (as bench:submit does). Every round
 * submits T tasks (default 1,500) for a fresh user and waits until none is left unfinished; the CPU is the
 * host process's own (user + system, all its threads) over that span, per task that ended. PostgreSQL: a fresh database on
 * DATABASE_URL's server, else an embedded one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { scratchDatabase } from '../scripts/support/scratch-database.js';
import { createKeys, hostEnv, pipeline } from './sections/gengate.js';
import { startHost, type HostProcess } from './support/host-process.js';
import { arg, f0, f2, load3, median } from './support/bench-args.js';

const ROUNDS = Number(arg('--rounds') ?? 3);
const TASKS = Number(arg('--tasks') ?? 1_500);
const BASE = arg('--base');
const CONNECTIONS = 10;
const WARMUP_TASKS = 300;

interface Subject {
  readonly name: string;
  readonly host: HostProcess;
  readonly dbUrl: string;
  /** One key per round, plus one for the warm-up. */
  readonly keys: readonly string[];
  close(): Promise<void>;
}

interface Row {
  readonly subject: string;
  readonly cpuMicrosPerTask: number;
  readonly tasksPerSecond: number;
}

async function startSubject(name: string, root: string | undefined): Promise<Subject> {
  const db = await scratchDatabase();
  // Result files in a scratch directory of their own, never in the measured checkout.
  const dataDir = mkdtempSync(join(tmpdir(), 'gg-bench-pipeline-'));
  const host = await startHost({ ...hostEnv(db.url, true), GENGATE_DATA_DIR: dataDir }, ...(root ? [root] : []));
  const keys = await createKeys(db.url, ROUNDS + 1);
  return {
    name,
    host,
    dbUrl: db.url,
    keys,
    async close() {
      await host.stop();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  process.stdout.write(`gengate bench:pipeline on ${cpus().length} cores, load average ${load3()}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}; ${ROUNDS} rounds of ${f0(TASKS)} tasks, ${CONNECTIONS} connections\n`);
  const subjects = [await startSubject('this checkout', undefined), ...(BASE ? [await startSubject(`base ${BASE}`, resolve(BASE))] : [])];
  const rows: Row[] = [];
  try {
    // Warm-up (JIT, pools, the worker's queues) for every process, not counted.
    for (const s of subjects) await pipeline(s.host, s.dbUrl, s.keys[0] ?? '', WARMUP_TASKS, CONNECTIONS);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? subjects : [...subjects].reverse();
      for (const s of order) {
        const run = await pipeline(s.host, s.dbUrl, s.keys[round + 1] ?? '', TASKS, CONNECTIONS);
        // A loaded machine refuses or fails some: said, not fatal (the figures are per task that ended).
        if (run.refused + run.failed > 0) process.stdout.write(`  ${s.name}: ${run.refused} submissions refused, ${run.failed} tasks failed in this round\n`);
        rows.push({ subject: s.name, cpuMicrosPerTask: run.cpuMicrosPerTask, tasksPerSecond: run.tasksPerSecond });
        process.stdout.write(`  round ${round + 1} ${s.name}: ${f0(run.cpuMicrosPerTask)} µs host CPU/task, ${f0(run.tasksPerSecond)} tasks/s; load ${load3()}\n`);
      }
    }
  } finally {
    for (const s of subjects) await s.close();
  }
  process.stdout.write(`\nmedians over ${ROUNDS} rounds; load average at the end ${load3()}\n| host | host CPU µs/task | tasks/s |\n|---|---|---|\n`);
  for (const s of subjects) {
    const mine = rows.filter((r) => r.subject === s.name);
    process.stdout.write(`| ${s.name} | ${f0(median(mine.map((r) => r.cpuMicrosPerTask)))} | ${f0(median(mine.map((r) => r.tasksPerSecond)))} |\n`);
  }
  // The two hosts of one round ran back to back: their ratio is the least disturbed by the machine's load.
  const [a, b] = subjects;
  if (a && b) {
    const pairs = Array.from({ length: ROUNDS }, (_, round) => {
      const [ra, rb] = [a, b].map((s) => rows.filter((r) => r.subject === s.name)[round]);
      return ra && rb ? { cpu: ra.cpuMicrosPerTask / rb.cpuMicrosPerTask, rate: ra.tasksPerSecond / rb.tasksPerSecond } : null;
    }).filter((p) => p !== null);
    process.stdout.write(
      `\n${a.name} / ${b.name}, per round: CPU per task ${pairs.map((p) => f2(p.cpu)).join(', ')} (median ${f2(median(pairs.map((p) => p.cpu)))}); tasks/s ${pairs.map((p) => f2(p.rate)).join(', ')} (median ${f2(median(pairs.map((p) => p.rate)))})\n`,
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
