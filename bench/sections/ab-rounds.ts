import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { scratchDatabase } from '../../scripts/support/scratch-database.js';
import { createKeys, hostEnv } from './gengate.js';
import { startHost, type HostProcess } from '../support/host-process.js';
import { f2, load3, median } from '../support/bench-args.js';
import { settleDatabase } from '../support/settle-database.js';

/** One host of an A/B bench, on a scratch database of its own (and its own result directory). */
export interface ScratchHost {
  readonly name: string;
  readonly host: HostProcess;
  readonly dbUrl: string;
  close(): Promise<void>;
}

/**
 * Starts a checkout's host (`root`, else this one) on a fresh scratch database, reached over `transport`
 * (the embedded server's socket by default, or TCP), with its result files in a scratch directory.
 */
export async function startScratchHost(name: string, opts: { root?: string; transport?: 'default' | 'tcp'; worker: boolean }): Promise<ScratchHost> {
  const db = await scratchDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'gg-bench-ab-'));
  const url = opts.transport === 'tcp' ? db.tcpUrl : db.url;
  const host = await startHost({ ...hostEnv(url, opts.worker), GENGATE_DATA_DIR: dataDir }, ...(opts.root ? [opts.root] : []));
  return {
    name,
    host,
    dbUrl: db.url,
    async close() {
      await host.stop();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The hosts an A/B compares: this checkout and `--base DIR`'s, or (`--tcp-vs-socket`) this checkout over the socket and over TCP. */
export async function abHosts(opts: { base: string | undefined; tcpVsSocket: boolean; worker: boolean }): Promise<ScratchHost[]> {
  if (opts.tcpVsSocket) {
    return [await startScratchHost('this checkout, socket', { worker: opts.worker }), await startScratchHost('this checkout, TCP', { transport: 'tcp', worker: opts.worker })];
  }
  const mine = await startScratchHost('this checkout', { worker: opts.worker });
  return opts.base ? [mine, await startScratchHost(`base ${opts.base}`, { root: resolve(opts.base), worker: opts.worker })] : [mine];
}

/** Round r's order (A B, then B A, ...), so that a drift in the machine's load falls on both hosts. */
export function roundOrder<T>(hosts: readonly T[], round: number): readonly T[] {
  return round % 2 === 0 ? hosts : [...hosts].reverse();
}

/**
 * `A / B, per round: <what> r1, r2, ... (median m)` for each figure: the two hosts of one round ran back to
 * back, so their ratio is the least disturbed by the machine's load. Empty with fewer than two hosts.
 */
export function perRoundRatios<R extends { readonly subject: string }>(hosts: readonly { readonly name: string }[], rows: readonly R[], figures: Record<string, (r: R) => number>): string {
  const [a, b] = hosts;
  if (!a || !b) return '';
  const ofA = rows.filter((r) => r.subject === a.name);
  const ofB = rows.filter((r) => r.subject === b.name);
  const parts = Object.entries(figures).map(([what, pick]) => {
    const ratios = ofA.flatMap((ra, i) => (ofB[i] ? [pick(ra) / pick(ofB[i])] : []));
    return `${what} ${ratios.map(f2).join(', ')} (median ${f2(median(ratios))})`;
  });
  return `\n${a.name} / ${b.name}, per round: ${parts.join('; ')}\n`;
}

/** One figure of an A/B bench's rounds: its table column, its name in the per-round ratios, how it is read off a round. */
export interface AbFigure<R> {
  readonly header: string;
  readonly ratio: string;
  readonly pick: (r: R) => number;
  readonly format: (n: number) => string;
}

/**
 * The rounds of an A/B bench over `subjects` (abHosts), each on its own user: a key per round and one for
 * the warm-up, the warm-up (JIT, pools, queues; not counted), then `rounds` rounds in alternating order
 * (roundOrder), each round's line printed as `describe` gives it, each measurement followed by its
 * database's vacuum and checkpoint (settleDatabase); the hosts closed at the end, then the
 * medians of `figures` per host and their per-round ratios.
 */
export async function runAbRounds<R>(o: {
  readonly subjects: readonly ScratchHost[];
  readonly rounds: number;
  readonly warmUp: (s: ScratchHost, key: string) => Promise<unknown>;
  readonly run: (s: ScratchHost, key: string) => Promise<R>;
  readonly describe: (r: R) => string;
  readonly figures: readonly AbFigure<R>[];
}): Promise<void> {
  const keys = new Map<ScratchHost, string[]>();
  for (const s of o.subjects) keys.set(s, await createKeys(s.dbUrl, o.rounds + 1));
  const rows: (R & { readonly subject: string })[] = [];
  try {
    for (const s of o.subjects) {
      await o.warmUp(s, keys.get(s)?.[0] ?? '');
      await settleDatabase(s.dbUrl);
    }
    for (let round = 0; round < o.rounds; round++) {
      for (const s of roundOrder(o.subjects, round)) {
        const r = await o.run(s, keys.get(s)?.[round + 1] ?? '');
        rows.push({ ...r, subject: s.name });
        process.stdout.write(`  round ${round + 1} ${s.name}: ${o.describe(r)}; load ${load3()}\n`);
        await settleDatabase(s.dbUrl); // its vacuum and checkpoint now, not under the next load
      }
    }
  } finally {
    for (const s of o.subjects) await s.close();
  }
  const headers = o.figures.map((f) => f.header);
  process.stdout.write(`\nmedians over ${o.rounds} rounds; load average at the end ${load3()}\n| host | ${headers.join(' | ')} |\n|---|${headers.map(() => '---|').join('')}\n`);
  for (const s of o.subjects) {
    const mine = rows.filter((r) => r.subject === s.name);
    process.stdout.write(`| ${s.name} | ${o.figures.map((f) => f.format(median(mine.map(f.pick)))).join(' | ')} |\n`);
  }
  process.stdout.write(perRoundRatios(o.subjects, rows, Object.fromEntries(o.figures.map((f) => [f.ratio, f.pick]))));
}

