/**
 * npm run bench:submit — the submission's figures beside their anchors (issue 23's targets): the host's CPU
 * per `POST /api/v1/run/{model}` (API key, sandbox chat, worker off, 10 connections, as fast as it goes)
 * over a bare Express 5 JSON POST's CPU per request measured in the same round, and its rate over the
 * database's 3-insert ceiling measured at the start of the run.
 *
 *   npm run bench:submit -- [--base DIR | --tcp-vs-socket] [--rounds N] [--seconds S] [--users U] [--no-ceiling]
 *
 * `--base DIR`: another checkout (built, with its node_modules) whose host is measured beside this one's,
 * each on its own scratch database, in alternating order round by round (A B, B A, ...), so that a drift in
 * the machine's load falls on both: an A/B of a change on a shared machine (as bench:poll does). Every round
 * submits for fresh users (`--users`, default 1: every submission on one account row, the headline case),
 * so both hosts see the same account state each round. PostgreSQL: a fresh database on DATABASE_URL's
 * server, else an embedded one, reached through its Unix-domain socket (the ceiling too). `--tcp-vs-socket`:
 * this checkout's host twice, over the embedded server's socket and over TCP (and the ceiling both ways).
 */
import { cpus } from 'node:os';
import { scratchDatabase } from '../scripts/support/scratch-database.js';
import { measureAnchor, measureDbCeiling, startExpressAnchor } from './sections/anchors.js';
import { createKeys, submission, type Measured } from './sections/gengate.js';
import { abHosts, perRoundRatios, roundOrder, type ScratchHost } from './sections/ab-rounds.js';
import { settleDatabase } from './support/settle-database.js';
import { arg, f0, f1, f2, load3, median } from './support/bench-args.js';

const ROUNDS = Number(arg('--rounds') ?? 3);
const SECONDS = Number(arg('--seconds') ?? 5);
const USERS = Number(arg('--users') ?? 1);
const BASE = arg('--base');
/** The host of this checkout twice, one connected through the embedded server's socket, one over TCP. */
const TCP_VS_SOCKET = process.argv.includes('--tcp-vs-socket');
const CEILING = !process.argv.includes('--no-ceiling');
const CONNECTIONS = 10;

interface Row {
  readonly subject: string;
  readonly express: number;
  readonly run: Measured;
}

async function main(): Promise<void> {
  process.stdout.write(
    `gengate bench:submit on ${cpus().length} cores, load average ${load3()}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}; ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, ${USERS} user(s)\n`,
  );
  let ceiling: number | null = null;
  if (CEILING) {
    const db = await scratchDatabase();
    try {
      // Over the transport the host uses (db.url: the embedded server's socket), so that like is compared with like.
      ceiling = (await measureDbCeiling(db.url)).threeInsertTps;
      process.stdout.write(`  database ceiling (BEGIN; 3 x INSERT; COMMIT, 10 clients${db.url === db.tcpUrl ? '' : ', socket'}): ${f0(ceiling)} tx/s; load ${load3()}\n`);
      if (TCP_VS_SOCKET && db.url !== db.tcpUrl) {
        const tcp = (await measureDbCeiling(db.tcpUrl)).threeInsertTps;
        process.stdout.write(`  database ceiling over TCP: ${f0(tcp)} tx/s (socket / TCP ${f2(ceiling / tcp)}); load ${load3()}\n`);
      }
    } finally {
      await db.close();
    }
  }
  const anchor = await startExpressAnchor();
  const subjects = await abHosts({ base: BASE, tcpVsSocket: TCP_VS_SOCKET, worker: false });
  // USERS keys per round, plus USERS for the warm-up.
  const keys = new Map<ScratchHost, string[]>();
  for (const s of subjects) keys.set(s, await createKeys(s.dbUrl, USERS * (ROUNDS + 1)));
  const rows: Row[] = [];
  try {
    // Warm-up (JIT, pools, key cache) for every process, not counted.
    await measureAnchor(anchor, 'run', CONNECTIONS, 1);
    for (const s of subjects) {
      await submission(s.host, (keys.get(s) ?? []).slice(0, USERS), CONNECTIONS, USERS, 2);
      await settleDatabase(s.dbUrl);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of roundOrder(subjects, round)) {
        const express = await measureAnchor(anchor, 'run', CONNECTIONS, SECONDS);
        const run = await submission(s.host, (keys.get(s) ?? []).slice(USERS * (round + 1), USERS * (round + 2)), CONNECTIONS, USERS, SECONDS);
        // A loaded machine times some out: said, not fatal (the figures are per answered request).
        if (run.non2xx + run.errors > 0) process.stdout.write(`  ${s.name}: ${run.non2xx} non-2xx answers, ${run.errors} errors in this round\n`);
        rows.push({ subject: s.name, express: express.cpuMicrosPerRequest, run });
        await settleDatabase(s.dbUrl); // the tasks it wrote vacuumed and checkpointed now, not under the next load
        const share = ceiling ? `, ${f0((100 * run.rps) / ceiling)}% of the ceiling` : '';
        process.stdout.write(
          `  round ${round + 1} ${s.name}: Express POST ${f0(express.cpuMicrosPerRequest)} µs CPU/req (${f0(express.rps)} req/s); submission ${f0(run.cpuMicrosPerRequest)} µs CPU/req = ${f2(run.cpuMicrosPerRequest / express.cpuMicrosPerRequest)}x, ${f0(run.rps)} req/s${share}, p50 ${f1(run.p50Ms)} ms, p99 ${f1(run.p99Ms)} ms; load ${load3()}\n`,
        );
      }
    }
  } finally {
    anchor.stop();
    for (const s of subjects) await s.close();
  }
  process.stdout.write(`\nmedians over ${ROUNDS} rounds; load average at the end ${load3()}\n`);
  process.stdout.write(`| host | submission CPU µs/req | Express POST µs/req | ratio (per round) | req/s, ${CONNECTIONS} conn., ${USERS} user(s) | share of the ceiling | p50 / p99 |\n|---|---|---|---|---|---|---|\n`);
  for (const s of subjects) {
    const mine = rows.filter((r) => r.subject === s.name);
    const m = (pick: (r: Row) => number) => median(mine.map(pick));
    const rps = m((r) => r.run.rps);
    process.stdout.write(
      `| ${s.name} | ${f0(m((r) => r.run.cpuMicrosPerRequest))} | ${f0(m((r) => r.express))} | ${f2(m((r) => r.run.cpuMicrosPerRequest / r.express))}x | ${f0(rps)} | ${ceiling ? `${f0((100 * rps) / ceiling)}%` : '-'} | ${f1(m((r) => r.run.p50Ms))} / ${f1(m((r) => r.run.p99Ms))} ms |\n`,
    );
  }
  process.stdout.write(perRoundRatios(subjects, rows, { 'CPU per submission': (r) => r.run.cpuMicrosPerRequest, 'req/s': (r) => r.run.rps }));
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
