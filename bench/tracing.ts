/**
 * npm run bench:tracing — what OpenTelemetry traces cost (docs/benchmarks.md, "Tracing off and on"): the
 * host's CPU per submission and per poll with tracing off (no OTEL_* variables: no SDK loaded) and on
 * (OTEL_TRACES_EXPORTER=otlp, batched OTLP/HTTP export to a local sink that counts what it receives), in
 * one run on one database, side by side with the difference. Rounds alternate off and on so drift in the
 * machine's load falls on both. The worker is off, as in `npm run bench`'s submission rows (the API
 * process's own cost: HTTP span, intake span, traceparent kept with the task). `-- --quick` shortens it.
 * PostgreSQL: a fresh database on DATABASE_URL's server, else an embedded one.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { DEFAULT_SCHEMA, runMigrations } from '@gengate/host/wiring';
import pg from 'pg';
import { scratchDatabase } from '../scripts/support/scratch-database.js';
import { discardBacklog } from './sections/backlog.js';
import { createKeys, hostEnv, measure, submission, submitOne, type Measured } from './sections/gengate.js';
import { startHost } from './support/host-process.js';

const quick = process.argv.includes('--quick');
const SECONDS = quick ? 2 : 5;
const ROUNDS = quick ? 1 : 3;
const CONNECTIONS = 10;
const load3 = () => loadavg().map((x) => x.toFixed(2)).join(' / ');
const f0 = (n: number) => Math.round(n).toLocaleString('en-US');

type Mode = 'off' | 'on';

/** A stand-in OTLP/HTTP collector: answers every export with 200 and counts requests and bytes. */
async function startSink(): Promise<{ url: string; requests: () => number; bytes: () => number; close(): Promise<void> }> {
  let requests = 0;
  let bytes = 0;
  const server = createServer((req: IncomingMessage, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The submissions left queued tasks and holds: end them, so each round starts from the same state. */
interface Round {
  readonly mode: Mode;
  readonly submit: Measured;
  readonly poll: Measured;
  readonly load: string;
}

async function main(): Promise<void> {
  const db = await scratchDatabase();
  const sink = await startSink();
  process.stdout.write(`gengate bench:tracing on ${cpus().length} cores, load average ${load3()}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}${quick ? ' (quick)' : ''}\n`);
  const rounds: Round[] = [];
  try {
    const migrator = new pg.Pool({ connectionString: db.url, max: 1 });
    await runMigrations(migrator, DEFAULT_SCHEMA);
    await migrator.end();
    const keys = await createKeys(db.url, CONNECTIONS);
    for (let i = 0; i < ROUNDS; i++) {
      for (const mode of ['off', 'on'] as const) {
        const env = {
          ...hostEnv(db.url, false),
          ...(mode === 'on'
            ? { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'gengate-bench' }
            : { OTEL_TRACES_EXPORTER: 'none' }),
        };
        const host = await startHost(env);
        try {
          // Warm-up (JIT, pools, key cache), not measured.
          await submission(host, keys, CONNECTIONS, CONNECTIONS, 1);
          const submit = await submission(host, keys, CONNECTIONS, CONNECTIONS, SECONDS);
          const taskId = await submitOne(host, keys[0] ?? '');
          const headerSets = [{ authorization: `Bearer ${keys[0]}` }];
          await measure(host, { url: `${host.url}/api/v1/run/tasks/${taskId}`, connections: CONNECTIONS, durationSeconds: 1, headerSets });
          const poll = await measure(host, { url: `${host.url}/api/v1/run/tasks/${taskId}`, connections: CONNECTIONS, durationSeconds: SECONDS, headerSets });
          const round = { mode, submit, poll, load: load3() };
          rounds.push(round);
          process.stdout.write(
            `  round ${i + 1} tracing ${mode}: submission ${f0(submit.cpuMicrosPerRequest)} µs CPU/req (${f0(submit.rps)} req/s), poll ${f0(poll.cpuMicrosPerRequest)} µs CPU/req (${f0(poll.rps)} req/s); load ${round.load}\n`,
          );
        } finally {
          await host.stop();
        }
        await discardBacklog(db.url);
      }
    }
  } catch (err) {
    // Said before the database is dropped (dropping it ends every connection still open to it).
    process.stderr.write(`bench:tracing failed: ${(err as Error).stack ?? String(err)}\n`);
    throw err;
  } finally {
    await sink.close();
    await db.close();
  }
  const mean = (mode: Mode, pick: (r: Round) => number) => {
    const xs = rounds.filter((r) => r.mode === mode).map(pick);
    return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  };
  const row = (what: string, pick: (r: Round) => number) => {
    const off = mean('off', pick);
    const on = mean('on', pick);
    return `| ${what} | ${f0(off)} | ${f0(on)} | ${on >= off ? '+' : ''}${f0(on - off)} (${on >= off ? '+' : ''}${Math.round((100 * (on - off)) / off)}%) |`;
  };
  process.stdout.write(`\nmean of ${ROUNDS} round(s) of ${SECONDS} s per mode, ${CONNECTIONS} connections; load average at the end ${load3()}\n`);
  process.stdout.write('| host CPU per request | tracing off (µs) | tracing on, OTLP export (µs) | difference |\n|---|---|---|---|\n');
  process.stdout.write(`${row('POST /api/v1/run/{model} (submission)', (r) => r.submit.cpuMicrosPerRequest)}\n`);
  process.stdout.write(`${row('GET /api/v1/run/tasks/{id} (poll)', (r) => r.poll.cpuMicrosPerRequest)}\n`);
  process.stdout.write(`| req/s, submission | ${f0(mean('off', (r) => r.submit.rps))} | ${f0(mean('on', (r) => r.submit.rps))} | |\n`);
  process.stdout.write(`| req/s, poll | ${f0(mean('off', (r) => r.poll.rps))} | ${f0(mean('on', (r) => r.poll.rps))} | |\n`);
  process.stdout.write(`\nOTLP sink received ${sink.requests()} export requests, ${f0(sink.bytes() / 1024)} KiB (tracing on only)\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
