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
import { pipeline } from './sections/gengate.js';
import { abHosts, runAbRounds } from './sections/ab-rounds.js';
import { arg, f0, load3 } from './support/bench-args.js';

const ROUNDS = Number(arg('--rounds') ?? 3);
const TASKS = Number(arg('--tasks') ?? 1_500);
const BASE = arg('--base');
const CONNECTIONS = 10;
const WARMUP_TASKS = 300;

async function main(): Promise<void> {
  process.stdout.write(`gengate bench:pipeline on ${cpus().length} cores, load average ${load3()}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}; ${ROUNDS} rounds of ${f0(TASKS)} tasks, ${CONNECTIONS} connections\n`);
  await runAbRounds({
    subjects: await abHosts({ base: BASE, tcpVsSocket: false, worker: true }),
    rounds: ROUNDS,
    warmUp: (s, key) => pipeline(s.host, s.dbUrl, key, WARMUP_TASKS, CONNECTIONS),
    run: async (s, key) => {
      const run = await pipeline(s.host, s.dbUrl, key, TASKS, CONNECTIONS);
      // A loaded machine refuses or fails some: said, not fatal (the figures are per task that ended).
      if (run.refused + run.failed > 0) process.stdout.write(`  ${s.name}: ${run.refused} submissions refused, ${run.failed} tasks failed in this round\n`);
      return run;
    },
    describe: (r) => `${f0(r.cpuMicrosPerTask)} µs host CPU/task, ${r.dbCpuMicrosPerTask === null ? '' : `${f0(r.dbCpuMicrosPerTask)} µs database CPU/task, `}${f0(r.tasksPerSecond)} tasks/s`,
    figures: [
      { header: 'host CPU µs/task', ratio: 'CPU per task', pick: (r) => r.cpuMicrosPerTask, format: f0 },
      // The PostgreSQL server's CPU (every backend's, live or ended), when it runs on this machine: less
      // disturbed by the machine's other load than tasks/s, the place a change to the SQL shows first.
      { header: 'database CPU µs/task', ratio: 'database CPU per task', pick: (r) => r.dbCpuMicrosPerTask ?? NaN, format: f0 },
      { header: 'tasks/s', ratio: 'tasks/s', pick: (r) => r.tasksPerSecond, format: f0 },
    ],
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
