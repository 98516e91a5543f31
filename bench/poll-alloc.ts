/**
 * npm run bench:poll-alloc — the bytes a poll allocates on the host's V8 heap (what its young-generation
 * collections then cost), beside its CPU: `GET /api/v1/run/tasks/{id}` with an API key, 10 connections,
 * as fast as it goes, as in npm run bench:poll. The host counts its own allocation between two signals
 * (bench/probes/alloc-probe.mjs, V8's GCProfiler); the figure is that count over the polls answered.
 *
 *   npm run bench:poll-alloc -- [--base DIR] [--rounds N] [--seconds S]
 *
 * `--base DIR`: another checkout (built) measured the same way, in alternating order round by round, as
 * bench:poll does; the per-round ratios are the A/B. A diagnosis beside bench:poll, not a record: the
 * probe's profiler costs a little per collection.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { abHosts, perRoundRatios, roundOrder } from './sections/ab-rounds.js';
import { measure } from './sections/gengate.js';
import { withTask, type PolledHost } from './sections/polled-host.js';
import { PROBE_DIR } from './sections/memory.js';
import { arg, f0, f2, load3, median } from './support/bench-args.js';

const ROUNDS = Number(arg('--rounds') ?? 4);
const SECONDS = Number(arg('--seconds') ?? 4);
const BASE = arg('--base');
const CONNECTIONS = 10;


interface Row {
  readonly subject: string;
  readonly kibPerPoll: number;
  readonly cpuMicrosPerPoll: number;
  readonly polls: number;
}

/** The host's allocation while `during` runs, in bytes. */
async function allocatedDuring<T>(s: PolledHost, during: () => Promise<T>): Promise<{ bytes: number; result: T }> {
  const file = join(PROBE_DIR, `alloc-${s.host.pid}.json`);
  rmSync(file, { force: true });
  process.kill(s.host.pid, 'SIGWINCH');
  const result = await during();
  process.kill(s.host.pid, 'SIGWINCH');
  for (let i = 0; i < 500 && !existsSync(file); i++) await sleep(10);
  await sleep(20); // the probe writes the file in one call; a short grace for the write to land
  return { bytes: (JSON.parse(readFileSync(file, 'utf8')) as { bytes: number }).bytes, result };
}

async function main(): Promise<void> {
  process.env['GENGATE_BENCH_ALLOC'] = '1';
  process.stdout.write(`gengate bench:poll-alloc, load average ${load3()}; ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections\n`);
  const subjects: PolledHost[] = [];
  for (const h of await abHosts({ base: BASE, tcpVsSocket: false, worker: false })) subjects.push(await withTask(h));
  const rows: Row[] = [];
  try {
    for (const s of subjects) await measure(s.host, { url: s.url, connections: CONNECTIONS, durationSeconds: 2, headerSets: [s.headers] });
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of roundOrder(subjects, round)) {
        const { bytes, result: m } = await allocatedDuring(s, () => measure(s.host, { url: s.url, connections: CONNECTIONS, durationSeconds: SECONDS, headerSets: [s.headers] }));
        if (m.non2xx + m.errors > 0) throw new Error(`${s.name}: ${m.non2xx} non-2xx, ${m.errors} errors`);
        const row = { subject: s.name, kibPerPoll: bytes / 1024 / m.requests, cpuMicrosPerPoll: m.cpuMicrosPerRequest, polls: m.requests };
        rows.push(row);
        process.stdout.write(`  round ${round + 1} ${s.name}: ${f2(row.kibPerPoll)} KiB/poll, ${f0(row.cpuMicrosPerPoll)} µs CPU/poll, ${f0(m.requests)} polls\n`);
      }
    }
  } finally {
    for (const s of subjects) await s.close();
  }
  for (const s of subjects) {
    const mine = rows.filter((r) => r.subject === s.name);
    process.stdout.write(`\n${s.name}: median ${f2(median(mine.map((r) => r.kibPerPoll)))} KiB/poll, ${f0(median(mine.map((r) => r.cpuMicrosPerPoll)))} µs CPU/poll`);
  }
  process.stdout.write(`\n${perRoundRatios(subjects, rows, { 'KiB/poll': (r) => r.kibPerPoll, 'CPU/poll': (r) => r.cpuMicrosPerPoll })}`);
}

await main();
