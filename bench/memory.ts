/**
 * npm run bench:memory — the resident-memory figures of `npm run bench` (issue 23: <= 200 MB after every
 * load) without the rest: the same loads on a `--role all` host started as `npm start` runs it, and the
 * memory probe's reading (bench/probes/memory-probe.mjs) after each:
 *   idle -> the submission loads (worker off; 1 and 50 users at 1, 10, 50 connections) -> a fresh host with
 *   the worker: the pipeline load, then dispatch at 200/s and chat end to end -> after every load.
 *
 *   npm run bench:memory -- [--base DIR] [--variant 'NAME|ENV=V ...|--node-flag ...'] [--rounds N]
 *                           [--seconds S] [--submission-only] [--heap-snapshots DIR]
 *
 * `--base DIR`: another checkout (built, with its node_modules) measured the same way, in alternating order
 * round by round (A B, B A, ...), so that the machine's load falls on both: an A/B on a shared machine. Its
 * schema must be this checkout's (the keys are made with this checkout's stores: a base before migration
 * 025, e.g. 24831e1, fails at `api_keys.member_id`).
 * `--variant`: this checkout again with extra environment variables and/or Node flags (e.g.
 * `'arena2|MALLOC_ARENA_MAX=2|'` or `'gc||--expose-gc'`); may be repeated.
 * `--heap-snapshots DIR`: each reading also writes a heap snapshot there (compare them with
 * bench/support/heap-diff.ts). GENGATE_BENCH_EXTRA_NODE_FLAGS=--expose-gc adds the live heap after a full
 * collection to every reading (the collection then changes the later readings: a diagnosis, not the record).
 * `--on-reading CMD`: a shell command run after each reading, while the host still runs, with {pid}, {subject}
 * and {phase} replaced (e.g. a script that attaches gdb and prints glibc's malloc_info: what is free, what in use).
 * Each subject runs on its own scratch database (DATABASE_URL's server, else an embedded PostgreSQL).
 */
import { execSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { scratchDatabase } from '../scripts/support/scratch-database.js';
import { discardBacklog } from './sections/backlog.js';
import { dispatchUnderLoad } from './sections/dispatch.js';
import { chatEndToEnd, createKeys, hostEnv, pipeline, submission } from './sections/gengate.js';
import { memoryOf, type MemoryReading } from './sections/memory.js';
import { productionNodeFlags, startHost, type HostProcess } from './support/host-process.js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const args = (name: string): string[] => argv.flatMap((a, i) => (a === name && argv[i + 1] !== undefined ? [argv[i + 1] as string] : []));
const ROUNDS = Number(arg('--rounds') ?? 2);
const SECONDS = Number(arg('--seconds') ?? 6);
const SUBMISSION_ONLY = argv.includes('--submission-only');
const SNAPSHOTS = arg('--heap-snapshots');
const ON_READING = arg('--on-reading');
const f1 = (n: number | null) => (n === null || Number.isNaN(n) ? '-' : n.toFixed(1));
const load3 = () => loadavg().map((x) => x.toFixed(2)).join(' / ');

interface Subject {
  readonly name: string;
  readonly root: string | undefined;
  readonly env: Record<string, string>;
  readonly nodeFlags: readonly string[];
}

function subjects(): Subject[] {
  const list: Subject[] = [{ name: 'this', root: undefined, env: {}, nodeFlags: [] }];
  const base = arg('--base');
  if (base) list.push({ name: 'base', root: resolve(base), env: {}, nodeFlags: [] });
  for (const v of args('--variant')) {
    const [name = 'variant', env = '', flags = ''] = v.split('|');
    list.push({
      name,
      root: undefined,
      env: Object.fromEntries(env.split(' ').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
      nodeFlags: flags.split(' ').filter(Boolean),
    });
  }
  return list;
}

type Readings = Record<string, MemoryReading>;

/** Starts the subject's host as `npm start` would (its checkout's flags, plus the variant's). */
async function start(s: Subject, databaseUrl: string, worker: boolean): Promise<HostProcess> {
  const saved = process.env['GENGATE_BENCH_NODE_FLAGS'];
  if (s.nodeFlags.length > 0) process.env['GENGATE_BENCH_NODE_FLAGS'] = [...productionNodeFlags(s.root), ...s.nodeFlags].join(' ');
  try {
    return await startHost({ ...hostEnv(databaseUrl, worker), ...s.env, ...(SNAPSHOTS ? { GENGATE_PROBE_HEAP_SNAPSHOTS: SNAPSHOTS } : {}) }, ...(s.root ? [s.root] : []));
  } finally {
    if (saved === undefined) delete process.env['GENGATE_BENCH_NODE_FLAGS'];
    else process.env['GENGATE_BENCH_NODE_FLAGS'] = saved;
  }
}

/** Scratch databases are dropped at the end: a drop terminates what is still connected, and under load a pool's sockets can outlive its end(). */
const databases: { close(): Promise<void> }[] = [];

/** One subject through the loads; a reading after each. */
async function runSubject(s: Subject): Promise<Readings> {
  const db = await scratchDatabase();
  databases.push(db);
  const out: Readings = {};
  const read = async (phase: string, host: HostProcess): Promise<void> => {
    out[phase] = await memoryOf(host.pid);
    if (ON_READING) {
      const cmd = ON_READING.replaceAll('{pid}', String(host.pid)).replaceAll('{subject}', s.name).replaceAll('{phase}', phase.replaceAll(' ', '-'));
      process.stdout.write(`  ${s.name}, ${phase}: ${execSync(cmd, { encoding: 'utf8' }).trim().replaceAll('\n', '\n    ')}\n`);
    }
  };
  let host = await start(s, db.url, false);
  try {
    const keys = await createKeys(db.url, 50);
    await sleep(500);
    await read('idle', host);
    for (const [users, connections] of [[1, 1], [1, 10], [1, 50], [50, 1], [50, 10], [50, 50]] as const) {
      await submission(host, keys, connections, users, SECONDS);
    }
    await read('after submission', host);
    if (SUBMISSION_ONLY) return out;
    await host.stop();
    await discardBacklog(db.url);
    host = await start(s, db.url, true);
    await sleep(500);
    await pipeline(host, db.url, keys[1] ?? '', 3_000, 10);
    await read('after pipeline', host);
    await dispatchUnderLoad('all', { api: host, all: [{ role: 'all', host }] }, db.url, [keys[2] ?? ''], { rate: 200, seconds: 10 });
    await chatEndToEnd(host, keys[3] ?? '', 200);
    await read('after every load', host);
    return out;
  } finally {
    await host.stop();
  }
}

function line(name: string, round: number, phase: string, m: MemoryReading): string {
  return `| ${round} | ${name} | ${phase} | ${f1(m.rssMb)} | ${f1(m.oldSpaceMb)} / ${f1(m.oldSpaceUsedMb)} | ${f1(m.liveHeapMb)} | ${f1(m.youngMb)} | ${f1(m.otherAnonymousMb)} | ${f1(m.fileBackedMb)} | ${(load3().split(' / ')[0] ?? '')} |`;
}

async function main(): Promise<void> {
  if (SNAPSHOTS) mkdirSync(SNAPSHOTS, { recursive: true });
  const list = subjects();
  process.stdout.write(
    `gengate bench:memory on ${cpus().length} cores, load average ${load3()}; ${ROUNDS} rounds, loads of ${SECONDS} s${SUBMISSION_ONLY ? ', submission only' : ''}; subjects: ${list.map((s) => `${s.name}${s.root ? ` (${s.root})` : ''}${s.nodeFlags.length ? ` [${s.nodeFlags.join(' ')}]` : ''}${Object.keys(s.env).length ? ` {${Object.entries(s.env).map(([k, v]) => `${k}=${v}`).join(' ')}}` : ''}`).join(', ')}\n`,
  );
  process.stdout.write('| round | subject | after | RSS MB | old space committed / used MB | live after full GC MB | young MB | other anonymous MB | file-backed MB | load (1 min) |\n|---|---|---|---|---|---|---|---|---|---|\n');
  const all: Record<string, Record<string, number[]>> = {};
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? list : [...list].reverse();
    for (const s of order) {
      const readings = await runSubject(s);
      for (const [phase, m] of Object.entries(readings)) {
        process.stdout.write(`${line(s.name, round, phase, m)}\n`);
        ((all[s.name] ??= {})[phase] ??= []).push(m.rssMb);
      }
    }
  }
  process.stdout.write('\nRSS MB per subject and reading (each round):\n');
  for (const [name, phases] of Object.entries(all)) {
    process.stdout.write(`  ${name}: ${Object.entries(phases).map(([p, xs]) => `${p} ${xs.map(f1).join(', ')}`).join('; ')}\n`);
  }
  process.stdout.write(`load average at the end ${load3()}\n`);
  for (const db of databases) await db.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
