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
import { cpus } from 'node:os';
import { createKeys, pipeline } from './sections/gengate.js';
import { abHosts, perRoundRatios, roundOrder, type ScratchHost } from './sections/ab-rounds.js';
import { arg, f0, load3, median } from './support/bench-args.js';

const ROUNDS = Number(arg('--rounds') ?? 3);
const TASKS = Number(arg('--tasks') ?? 1_500);
const BASE = arg('--base');
const CONNECTIONS = 10;
const WARMUP_TASKS = 300;

interface Row {
  readonly subject: string;
  readonly cpuMicrosPerTask: number;
  readonly tasksPerSecond: number;
}

async function main(): Promise<void> {
  process.stdout.write(`gengate bench:pipeline on ${cpus().length} cores, load average ${load3()}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}; ${ROUNDS} rounds of ${f0(TASKS)} tasks, ${CONNECTIONS} connections\n`);
  const subjects = await abHosts({ base: BASE, tcpVsSocket: false, worker: true });
  // One key per round, plus one for the warm-up.
  const keys = new Map<ScratchHost, string[]>();
  for (const s of subjects) keys.set(s, await createKeys(s.dbUrl, ROUNDS + 1));
  const rows: Row[] = [];
  try {
    // Warm-up (JIT, pools, the worker's queues) for every process, not counted.
    for (const s of subjects) await pipeline(s.host, s.dbUrl, keys.get(s)?.[0] ?? '', WARMUP_TASKS, CONNECTIONS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of roundOrder(subjects, round)) {
        const run = await pipeline(s.host, s.dbUrl, keys.get(s)?.[round + 1] ?? '', TASKS, CONNECTIONS);
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
  process.stdout.write(perRoundRatios(subjects, rows, { 'CPU per task': (r) => r.cpuMicrosPerTask, 'tasks/s': (r) => r.tasksPerSecond }));
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
