/**
 * npm run bench:poll — the poll's figures beside their anchor (issue 23's targets): the host's CPU per
 * `GET /api/v1/run/tasks/{id}` (API key, 10 connections, as fast as it goes) over a bare Express 5 hello
 * route's CPU per request measured in the same round, and the poll's latency at 1,000 arrivals a second (open loop, support/load.ts openLoad, as npm run bench).
 *
 *   npm run bench:poll -- [--base DIR | --tcp-vs-socket] [--rounds N] [--seconds S] [--rate R]
 *
 * `--base DIR`: another checkout (built, with its node_modules) whose host is measured beside this one's,
 * each on its own scratch database, in alternating order round by round (A B, B A, ...), so that a drift in
 * the machine's load falls on both: an A/B of a change on a shared machine. Figures are per-round ratios and
 * their medians; absolute figures move with the machine's load. PostgreSQL: a fresh database on
 * DATABASE_URL's server, else an embedded one through its socket. `--tcp-vs-socket`: this checkout's
 * host twice, over the embedded server's socket and over TCP.
 */
import { cpus } from 'node:os';
import { measureAnchor, startExpressAnchor } from './sections/anchors.js';
import { measure, measureOpen, type Measured } from './sections/gengate.js';
import { withTask, type PolledHost } from './sections/polled-host.js';
import { abHosts, roundOrder } from './sections/ab-rounds.js';
import { arg, f0, f1, f2, load3, median } from './support/bench-args.js';

const ROUNDS = Number(arg('--rounds') ?? 3);
const SECONDS = Number(arg('--seconds') ?? 5);
const RATE = Number(arg('--rate') ?? 1000);
const BASE = arg('--base');
/** The host of this checkout twice, one connected through the embedded server's socket, one over TCP. */
const TCP_VS_SOCKET = process.argv.includes('--tcp-vs-socket');
const CONNECTIONS = 10;


interface Row {
  readonly subject: string;
  readonly hello: number;
  readonly max: Measured;
  readonly fixed: Measured;
}

async function main(): Promise<void> {
  process.stdout.write(`gengate bench:poll on ${cpus().length} cores, load average ${load3()}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}; ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections\n`);
  const anchor = await startExpressAnchor();
  const subjects: PolledHost[] = [];
  for (const h of await abHosts({ base: BASE, tcpVsSocket: TCP_VS_SOCKET, worker: false })) subjects.push(await withTask(h));
  const rows: Row[] = [];
  try {
    // Warm-up (JIT, pools, key cache) for every process, not counted.
    await measureAnchor(anchor, 'hello', CONNECTIONS, 1);
    for (const s of subjects) await measure(s.host, { url: s.url, connections: CONNECTIONS, durationSeconds: 1, headerSets: [s.headers] });
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of roundOrder(subjects, round)) {
        const hello = await measureAnchor(anchor, 'hello', CONNECTIONS, SECONDS);
        const max = await measure(s.host, { url: s.url, connections: CONNECTIONS, durationSeconds: SECONDS, headerSets: [s.headers] });
        const fixed = await measureOpen(s.host, { url: s.url, rate: RATE, durationSeconds: SECONDS, headerSets: [s.headers] });
        if (max.non2xx + fixed.non2xx + max.errors + fixed.errors > 0) throw new Error(`${s.name}: ${max.non2xx + fixed.non2xx} non-2xx, ${max.errors + fixed.errors} errors`);
        rows.push({ subject: s.name, hello: hello.cpuMicrosPerRequest, max, fixed });
        process.stdout.write(
          `  round ${round + 1} ${s.name}: Express hello ${f0(hello.cpuMicrosPerRequest)} µs CPU/req (${f0(hello.rps)} req/s); poll ${f0(max.cpuMicrosPerRequest)} µs CPU/req = ${f2(max.cpuMicrosPerRequest / hello.cpuMicrosPerRequest)}x, ${f0(max.rps)} req/s, p99 ${f1(max.p99Ms)} ms; at ${f0(RATE)} req/s: p50 ${f1(fixed.p50Ms)} ms, p99 ${f1(fixed.p99Ms)} ms (${f0(fixed.rps)} req/s, ${f0(fixed.cpuMicrosPerRequest)} µs CPU/req); load ${load3()}\n`,
        );
      }
    }
  } finally {
    anchor.stop();
    for (const s of subjects) await s.close();
  }
  process.stdout.write(`\nmedians over ${ROUNDS} rounds; load average at the end ${load3()}\n`);
  process.stdout.write(`| host | poll CPU µs/req | Express hello µs/req | ratio (per round) | poll req/s, 10 conn. | p50 / p99 at ${f0(RATE)} req/s | CPU µs/req at ${f0(RATE)} req/s |\n|---|---|---|---|---|---|---|\n`);
  for (const s of subjects) {
    const mine = rows.filter((r) => r.subject === s.name);
    const m = (pick: (r: Row) => number) => median(mine.map(pick));
    process.stdout.write(
      `| ${s.name} | ${f0(m((r) => r.max.cpuMicrosPerRequest))} | ${f0(m((r) => r.hello))} | ${f2(m((r) => r.max.cpuMicrosPerRequest / r.hello))}x | ${f0(m((r) => r.max.rps))} | ${f1(m((r) => r.fixed.p50Ms))} / ${f1(m((r) => r.fixed.p99Ms))} ms | ${f0(m((r) => r.fixed.cpuMicrosPerRequest))} |\n`,
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
