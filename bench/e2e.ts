/**
 * npm run bench:e2e — `npm run bench`'s chat submit -> callback received (zero-latency sandbox chat, one
 * submission at a time, measured by the client: HTTP, commit, wake-up, execution, settlement, callback
 * job, callback POST), as an A/B.
 *
 *   npm run bench:e2e -- [--base DIR] [--rounds N] [--count C]
 *
 * `--base DIR`: another checkout (built, with its node_modules) whose host is measured beside this one's,
 * each on its own scratch database, in alternating order round by round (A B, B A, ...) so that a drift in
 * the machine's load falls on both (as bench:pipeline does). Every round sends C chats (default 200) for a
 * fresh user, after a warm-up of 50 per host.
 */
import { cpus } from 'node:os';
import { chatEndToEnd, createKeys, percentile } from './sections/gengate.js';
import { abHosts, perRoundRatios, roundOrder, type ScratchHost } from './sections/ab-rounds.js';
import { arg, f1, load3, median } from './support/bench-args.js';

const ROUNDS = Number(arg('--rounds') ?? 3);
const COUNT = Number(arg('--count') ?? 200);
const BASE = arg('--base');
const WARMUP = 50;

interface Row {
  readonly subject: string;
  readonly p50: number;
  readonly p99: number;
}

async function main(): Promise<void> {
  process.stdout.write(`gengate bench:e2e on ${cpus().length} cores, load average ${load3()}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}; ${ROUNDS} rounds of ${COUNT} chats\n`);
  const subjects = await abHosts({ base: BASE, tcpVsSocket: false, worker: true });
  const keys = new Map<ScratchHost, string[]>();
  for (const s of subjects) keys.set(s, await createKeys(s.dbUrl, ROUNDS + 1));
  const rows: Row[] = [];
  try {
    for (const s of subjects) await chatEndToEnd(s.host, keys.get(s)?.[0] ?? '', WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of roundOrder(subjects, round)) {
        const e2e = await chatEndToEnd(s.host, keys.get(s)?.[round + 1] ?? '', COUNT);
        rows.push({ subject: s.name, p50: percentile(e2e, 50), p99: percentile(e2e, 99) });
        process.stdout.write(`  round ${round + 1} ${s.name}: p50 ${f1(percentile(e2e, 50))} ms, p99 ${f1(percentile(e2e, 99))} ms; load ${load3()}\n`);
      }
    }
  } finally {
    for (const s of subjects) await s.close();
  }
  process.stdout.write(`\nmedians over ${ROUNDS} rounds; load average at the end ${load3()}\n| host | chat -> callback p50 ms | p99 ms |\n|---|---|---|\n`);
  for (const s of subjects) {
    const mine = rows.filter((r) => r.subject === s.name);
    process.stdout.write(`| ${s.name} | ${f1(median(mine.map((r) => r.p50)))} | ${f1(median(mine.map((r) => r.p99)))} |\n`);
  }
  process.stdout.write(perRoundRatios(subjects, rows, { p50: (r) => r.p50, p99: (r) => r.p99 }));
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
