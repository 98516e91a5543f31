/**
 * npm run chaos — crash safety under fire (run by CI after the tests):
 * 200 sandbox tasks with random latencies, half with a callback_url, while the worker process is
 * killed with SIGKILL at random moments and restarted. At the end: every task is success or fail,
 * no task is charged twice (a failed one not at all), no credit is left held, the ledger invariant
 * holds, and every task with a callback_url got a delivered callback.
 * Writes a vitest-style JSON summary to the path given as the first argument (for .ci/run).
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { runCli, spawnServer, tempDataDir, type SpawnedServer } from '../packages/host/test/support/spawn-server.js';
import { scratchDatabase } from './support/scratch-database.js';
import { checkList, checkTaskOutcomes, waitUntilSettled } from './support/task-outcome-checks.js';

const TASKS = 200;
const KILLS = 6;
const checks = checkList();
const { check } = checks;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const started = Date.now();
  const db = await scratchDatabase();
  const delivered = new Set<string>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      delivered.add((JSON.parse(body) as { task_id: string }).task_id);
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const env = {
    DATABASE_URL: db.url,
    GENGATE_DATA_DIR: tempDataDir(),
    SANDBOX_LATENCY_MS: '200',
    SANDBOX_LATENCY_JITTER_MS: '2500',
    CALLBACK_ALLOW_PRIVATE: 'true',
    CALLBACK_RETRY_DELAY_SECONDS: '1',
    LOG_LEVEL: 'warn',
  };
  const keys: string[] = [];
  for (let i = 0; i < 4; i++) {
    keys.push((JSON.parse(await runCli(['users', 'create', '--email', `chaos${i}@example.com`, '--credits', '10000'], env)) as { api_key: string }).api_key);
  }
  const api = await spawnServer({ ...env, RUN_WORKER: 'false' });
  let worker: SpawnedServer = await spawnServer(env);

  const models = [
    ['sandbox.echo-chat', { prompt: 'chaos chat' }],
    ['sandbox.pixel-image', { prompt: 'chaos image', image_params: { width: 96, height: 96 } }],
    ['sandbox.motion-video', { prompt: 'chaos video', video_params: { duration: 5 } }],
    ['sandbox.always-fail', {}],
  ] as const;
  const submissions = Array.from({ length: TASKS }, async (_, i) => {
    const [model, body] = models[i % models.length] ?? models[0];
    await pause(Math.random() * 3_000);
    const res = await fetch(`${api.url}/api/v1/run/${model}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${keys[i % keys.length]}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...body, ...(i % 2 === 0 ? { callback_url: hook } : {}) }),
    });
    if (res.status !== 200) console.log(`submission ${i} -> ${res.status} ${await res.text()}`);
    return res.status;
  });
  const killer = (async () => {
    for (let k = 0; k < KILLS; k++) {
      await pause(500 + Math.random() * 2_500);
      await worker.stop('SIGKILL');
      worker = await spawnServer(env);
    }
  })();
  const statuses = await Promise.all(submissions);
  await killer;
  check('all 200 submissions accepted', statuses.every((s) => s === 200), `${statuses.filter((s) => s === 200).length} accepted`);

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const q = async <T extends object>(sql: string) => (await client.query<T>(sql)).rows;
  await waitUntilSettled(client, 240_000);
  await checkTaskOutcomes(client, db.url, TASKS, delivered, check);
  const [retried] = await q<{ n: number }>(`select count(*)::int as n from gengate.tasks where attempts > 1`);
  console.log(`chaos: ${KILLS} SIGKILLs, ${retried?.n} tasks needed more than one attempt, ${Math.round((Date.now() - started) / 1000)} s`);

  await client.end();
  await worker.stop('SIGKILL');
  await api.stop();
  receiver.close();
  await db.close();
}

const out = process.argv[2];
main()
  .catch((err: unknown) => check('chaos run completed', false, err instanceof Error ? err.message : String(err)))
  .finally(() => {
    const summary = checks.summary();
    if (out) writeFileSync(out, JSON.stringify(summary));
    console.log(`${summary.numPassedTests} passed, ${summary.numFailedTests} failed`);
    process.exit(summary.numFailedTests > 0 ? 1 : 0);
  });
