/**
 * npm run bench:migrations — what a start costs in runMigrations: a fresh database migrated (every migration,
 * and since functions/ the function set defined before and after them), and a start with nothing to do
 * (the median of 15 runs on the migrated database: since functions/ one more table check and one hash read).
 *
 *   npm run bench:migrations -- [--base DIR] [--rounds N]
 *
 * `--base DIR`: another checkout (built: its packages/host/dist, with its node_modules) measured beside this
 * one in alternating order round by round (A B, B A, ...), each round on fresh databases; figures are per-round
 * ratios and their medians (absolute times move with the machine's load). PostgreSQL: DATABASE_URL's server,
 * else an embedded one.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { runMigrations } from '../packages/host/src/postgres/migrate.js';
import { scratchDatabase } from '../scripts/support/scratch-database.js';
import { arg, load3, median } from './support/bench-args.js';

type Migrate = (pool: pg.Pool, schema: string) => Promise<unknown>;

const ROUNDS = Number(arg('--rounds') ?? 5);
const BASE = arg('--base');
const NOOP_RUNS = 15;

interface Timing {
  readonly freshMs: number;
  readonly noopMs: number;
}

async function time(migrate: Migrate): Promise<Timing> {
  const db = await scratchDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    let t = performance.now();
    await migrate(pool, 'gengate');
    const freshMs = performance.now() - t;
    const noop: number[] = [];
    for (let i = 0; i < NOOP_RUNS; i++) {
      t = performance.now();
      await migrate(pool, 'gengate');
      noop.push(performance.now() - t);
    }
    return { freshMs, noopMs: median(noop) };
  } finally {
    await pool.end();
    await db.close();
  }
}

async function main(): Promise<void> {
  process.stdout.write(`gengate bench:migrations, load average ${load3()}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}; ${ROUNDS} rounds\n`);
  const base: Migrate | undefined = BASE
    ? ((await import(pathToFileURL(resolve(BASE, 'packages/host/dist/postgres/migrate.js')).href)) as { runMigrations: Migrate }).runMigrations
    : undefined;
  const ratios: { fresh: number; noop: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order: ('a' | 'b')[] = !base ? ['a'] : r % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    const got: Partial<Record<'a' | 'b', Timing>> = {};
    for (const who of order) got[who] = await time(who === 'a' ? runMigrations : (base as Migrate));
    const a = got.a as Timing;
    const line = [`round ${r + 1}: this checkout fresh ${a.freshMs.toFixed(0)} ms, start with nothing to do ${a.noopMs.toFixed(2)} ms`];
    if (got.b) {
      line.push(`base fresh ${got.b.freshMs.toFixed(0)} ms, nothing to do ${got.b.noopMs.toFixed(2)} ms`);
      ratios.push({ fresh: a.freshMs / got.b.freshMs, noop: a.noopMs / got.b.noopMs });
    }
    process.stdout.write(`${line.join('; ')} (load ${load3()})\n`);
  }
  if (ratios.length > 0) {
    process.stdout.write(
      `median ratio this/base: fresh ${median(ratios.map((x) => x.fresh)).toFixed(2)}, nothing to do ${median(ratios.map((x) => x.noop)).toFixed(2)} (per round: ${ratios.map((x) => `${x.fresh.toFixed(2)}/${x.noop.toFixed(2)}`).join(', ')})\n`,
    );
  }
}

await main();
