/**
 * npm run chaos:routes — routes and their shared breakers under an outage (issue 21): 2 API processes
 * (ROLE=api) and 2 worker processes (ROLE=worker) on one PostgreSQL, with two routed chat models whose
 * first route (route A, `anthropic.claude-haiku-4-5`) is the fake Anthropic API behind a TCP proxy, and
 * whose second routes (B) are the fake OpenAI-compatible server and the fake OpenAI API. 300 tasks (the two
 * routed models and an unrouted sandbox model) are submitted round-robin through both API processes over
 * 80 s while route A goes down (the proxy closes: connections refused, open ones cut) for 20 s and comes
 * back. Every process's /metrics is read every 200 ms. At the end: every task ended once, no double
 * charge (the ledger checks of chaos:cluster), every routed task succeeded (fallback to B), the circuit of
 * route A opened in every process within 5 s of the outage and closed in every process after recovery.
 * Prints the traffic per route in 2-s buckets (from the tasks' attempt logs) and writes a vitest-style JSON
 * summary to the path given as the first argument.
 */
import { writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { startProviderFakes } from '../packages/host/test/support/provider-fakes.js';
import { runCli, tempDataDir } from '../packages/host/test/support/spawn-server.js';
import { freePort, startGengate, type ClusterProcess } from './support/cluster-process.js';
import { scratchDatabase } from './support/scratch-database.js';
import { checkList, checkTaskOutcomes, waitUntilSettled } from './support/task-outcome-checks.js';

const TASKS = 300;
const SUBMIT_OVER_MS = 80_000;
const DOWN_AT_MS = 10_000;
const DOWN_FOR_MS = 20_000;
const ROUTE_A = 'anthropic.claude-haiku-4-5';
const METRICS_TOKEN = 'chaos-routes-metrics-token';
const BUCKET_MS = 2_000;
const checks = checkList();
const { check } = checks;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ROUTED_MODELS = [
  { id: 'chaos-chat-compat', name: 'Chaos chat (Anthropic, then the compatible reseller)', routes: [ROUTE_A, 'fakecompat.echo'] },
  { id: 'chaos-chat-openai', name: 'Chaos chat (Anthropic, then OpenAI)', routes: [ROUTE_A, 'openai.gpt-4.1-mini'] },
];
const MIX = [
  ['chaos-chat-compat', { prompt: 'chaos routes compat' }],
  ['chaos-chat-openai', { prompt: 'chaos routes openai' }],
  ['sandbox.echo-chat', { prompt: 'chaos routes sandbox' }],
] as const;

/** A TCP proxy in front of an upstream that can go down (listener closed, live connections cut) and come back on the same port. */
async function switchableProxy(target: URL): Promise<{ url: string; down(): Promise<void>; up(): Promise<void>; close(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', resolve);
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = null;
      for (const socket of sockets) socket.destroy();
      if (s) s.close(() => resolve());
      else resolve();
    });
  await listen();
  return { url: `http://127.0.0.1:${port}`, down: stop, up: listen, close: stop };
}

/** Route A's breaker state as each process reports it in /metrics. */
async function circuitOf(p: ClusterProcess): Promise<string | null> {
  try {
    const text = await (await fetch(`${p.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` }, signal: AbortSignal.timeout(2_000) })).text();
    const m = new RegExp(`^gengate_route_circuit_state\\{route="${ROUTE_A.replace(/\./g, '\\.')}",state="(\\w+)"\\} 1$`, 'm').exec(text);
    return m?.[1] ?? null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const at = () => Date.now() - started;
  const db = await scratchDatabase();
  const fakes = await startProviderFakes();
  const proxy = await switchableProxy(new URL(fakes.anthropic.url));
  const dataDir = tempDataDir();
  const apiPorts = [await freePort(), await freePort()] as const;
  const env = {
    DATABASE_URL: db.url,
    GENGATE_DATA_DIR: dataDir,
    PUBLIC_URL: `http://127.0.0.1:${apiPorts[0]}`,
    SANDBOX_LATENCY_MS: '100',
    LOG_LEVEL: 'error',
    METRICS_TOKEN,
    ...fakes.env,
    ANTHROPIC_BASE_URL: `${proxy.url}/v1`,
    ROUTED_MODELS: JSON.stringify(ROUTED_MODELS),
  };
  const createUser = async (i: number) =>
    (JSON.parse(await runCli(['users', 'create', '--email', `routes${i}@example.com`, '--credits', '10000'], env)) as { api_key: string }).api_key;
  const keys: string[] = [await createUser(0), ...(await Promise.all([1, 2, 3].map(createUser)))];
  const apiEnv = (i: 0 | 1) => ({ ...env, PORT: String(apiPorts[i]), ROLE: 'api', RUN_WORKER: 'false' });
  const workerEnv = { ...env, PORT: '0', ROLE: 'worker' };
  const processes = await Promise.all([startGengate('api-0', apiEnv(0)), startGengate('api-1', apiEnv(1)), startGengate('worker-0', workerEnv), startGengate('worker-1', workerEnv)]);
  const api = processes.slice(0, 2);
  console.log(`cluster up in ${Math.round(at() / 1000)} s: 2 API + 2 worker processes; route A = ${ROUTE_A} behind ${proxy.url}`);

  // Every process's view of route A, every 200 ms: when each first saw it open after the outage began, and closed after.
  const t0 = at();
  let downAt = Number.POSITIVE_INFINITY;
  let upAt = Number.POSITIVE_INFINITY;
  const openedAt = new Map<string, number>();
  const closedAt = new Map<string, number>();
  const timeline: string[] = [];
  let observing = true;
  const observer = (async () => {
    const last = new Map<string, string | null>();
    while (observing) {
      await Promise.all(
        processes.map(async (p) => {
          const state = await circuitOf(p);
          const now = at();
          if (state !== last.get(p.name)) timeline.push(`${((now - t0) / 1000).toFixed(1)} s ${p.name}: ${state ?? 'unknown'}`);
          last.set(p.name, state);
          if (state === 'open' && now >= downAt && !openedAt.has(p.name)) openedAt.set(p.name, now);
          if (state === 'closed' && openedAt.has(p.name) && now >= upAt && !closedAt.has(p.name)) closedAt.set(p.name, now);
        }),
      );
      await pause(200);
    }
  })();

  const outage = (async () => {
    await pause(DOWN_AT_MS);
    await proxy.down();
    downAt = at();
    console.log(`route A down at ${((downAt - t0) / 1000).toFixed(1)} s`);
    await pause(DOWN_FOR_MS);
    await proxy.up();
    upAt = at();
    console.log(`route A back at ${((upAt - t0) / 1000).toFixed(1)} s`);
  })();

  const submissions = Array.from({ length: TASKS }, async (_, i) => {
    const [model, body] = MIX[i % MIX.length] ?? MIX[0];
    await pause((i / TASKS) * SUBMIT_OVER_MS);
    const res = await fetch(`${(api[i % 2] as ClusterProcess).url}/api/v1/run/${model}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${keys[i % keys.length] ?? ''}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) console.log(`submission ${i} (${model}) -> ${res.status} ${text}`);
    return res.status;
  });
  const statuses = await Promise.all(submissions);
  await outage;
  check(`all ${TASKS} submissions accepted`, statuses.every((s) => s === 200), `${statuses.filter((s) => s === 200).length} accepted`);

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await waitUntilSettled(client, 120_000);
  // The breaker closes after a probe once the cooldown (15 s, 30 s after a failed probe) is over: wait for it in every process.
  for (let waited = 0; closedAt.size < processes.length && waited < 60_000; waited += 500) await pause(500);
  observing = false;
  await observer;
  console.log(`settled at ${Math.round(at() / 1000)} s`);

  await checkTaskOutcomes(client, db.url, TASKS, new Set(), check);
  const { rows: routed } = await client.query<{ model_id: string; status: string; n: number }>(
    `select model_id, status, count(*)::int as n from gengate.tasks where model_id like 'chaos-chat-%' group by 1, 2 order by 1, 2`,
  );
  check('every routed task succeeded (fallback to route B while A was down)', routed.every((r) => r.status === 'success'), routed.map((r) => `${r.model_id} ${r.status} ${r.n}`).join(', '));
  const openDelays = processes.map((p) => [p.name, (openedAt.get(p.name) ?? Number.POSITIVE_INFINITY) - downAt] as const);
  check(
    'the circuit of route A opened in every process within 5 s of the outage',
    openDelays.every(([, d]) => d <= 5_000),
    openDelays.map(([n, d]) => `${n} ${Number.isFinite(d) ? `${(d / 1000).toFixed(1)} s` : 'never'}`).join(', '),
  );
  const closeDelays = processes.map((p) => [p.name, (closedAt.get(p.name) ?? Number.POSITIVE_INFINITY) - upAt] as const);
  check(
    'the circuit of route A closed in every process after recovery',
    closeDelays.every(([, d]) => Number.isFinite(d)),
    closeDelays.map(([n, d]) => `${n} ${Number.isFinite(d) ? `${(d / 1000).toFixed(1)} s after A came back` : 'never'}`).join(', '),
  );
  const firstSeen = Math.min(...processes.map((p) => openedAt.get(p.name) ?? Number.POSITIVE_INFINITY));
  console.log(
    `route A opened first seen at ${((firstSeen - t0) / 1000).toFixed(1)} s (${((firstSeen - downAt) / 1000).toFixed(1)} s after the outage began); seen open in every process within ${(
      (Math.max(...openDelays.map(([, d]) => d)) + downAt - firstSeen) /
      1000
    ).toFixed(1)} s of the first`,
  );
  console.log(`route A as each process saw it:\n  ${timeline.join('\n  ')}`);

  // Traffic per route over time, from the attempt logs (started_at), in 2-s buckets from the first submission.
  const { rows: traffic } = await client.query<{ bucket: number; route: string; outcome: string; n: number }>(
    `select floor((extract(epoch from (a->>'started_at')::timestamptz) * 1000 - $1) / $2)::int as bucket, a->>'route' as route, coalesce(a->>'outcome', '?') as outcome, count(*)::int as n
       from gengate.tasks t, jsonb_array_elements(t.route_attempts) a
      group by 1, 2, 3 order by 1, 2, 3`,
    [started + t0, BUCKET_MS],
  );
  const buckets = new Map<number, string[]>();
  for (const r of traffic) buckets.set(r.bucket, [...(buckets.get(r.bucket) ?? []), `${r.route} ${r.outcome} ${r.n}`]);
  console.log(`traffic per route (attempts started per ${BUCKET_MS / 1000}-s bucket; A down ${((downAt - t0) / 1000).toFixed(1)}–${((upAt - t0) / 1000).toFixed(1)} s):`);
  for (const [b, line] of [...buckets].sort(([x], [y]) => x - y)) console.log(`  ${String(b * 2).padStart(3)}–${String(b * 2 + 2).padEnd(3)} s  ${line.join(' | ')}`);

  await client.end();
  await Promise.all(processes.map((p) => p.stop('SIGTERM')));
  await proxy.close();
  await fakes.close();
  await db.close();
}

const out = process.argv[2];
main()
  .catch((err: unknown) => check('chaos:routes run completed', false, err instanceof Error ? (err.stack ?? err.message) : String(err)))
  .finally(() => {
    const summary = checks.summary();
    if (out) writeFileSync(out, JSON.stringify(summary));
    console.log(`${summary.numPassedTests} passed, ${summary.numFailedTests} failed`);
    process.exit(summary.numFailedTests > 0 ? 1 : 0);
  });
