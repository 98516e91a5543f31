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
import { chatEndToEnd, percentile } from './sections/gengate.js';
import { abHosts, runAbRounds } from './sections/ab-rounds.js';
import { arg, f1, load3 } from './support/bench-args.js';

const ROUNDS = Number(arg('--rounds') ?? 3);
const COUNT = Number(arg('--count') ?? 200);
const BASE = arg('--base');
const WARMUP = 50;

async function main(): Promise<void> {
  process.stdout.write(`gengate bench:e2e on ${cpus().length} cores, load average ${load3()}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}; ${ROUNDS} rounds of ${COUNT} chats\n`);
  await runAbRounds({
    subjects: await abHosts({ base: BASE, tcpVsSocket: false, worker: true }),
    rounds: ROUNDS,
    warmUp: (s, key) => chatEndToEnd(s.host, key, WARMUP),
    run: async (s, key) => {
      const e2e = await chatEndToEnd(s.host, key, COUNT);
      return { p50: percentile(e2e, 50), p99: percentile(e2e, 99) };
    },
    describe: (r) => `p50 ${f1(r.p50)} ms, p99 ${f1(r.p99)} ms`,
    figures: [
      { header: 'chat -> callback p50 ms', ratio: 'p50', pick: (r) => r.p50, format: f1 },
      { header: 'p99 ms', ratio: 'p99', pick: (r) => r.p99, format: f1 },
    ],
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
