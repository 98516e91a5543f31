/**
 * npm run chaos:cluster — several processes on one database with shared S3 result storage (CI runs it):
 * 2 API processes (ROLE=api) and 2 worker processes (ROLE=worker) on one PostgreSQL, result files in an
 * S3-protocol server (s3rver, through the real AWS SDK). 300 sandbox tasks with random latencies, half
 * with a callback_url, are submitted round-robin through both API processes (with an Idempotency-Key, so
 * a submission cut off by a crash is retried on the other process) while one worker and one API process
 * are SIGKILLed and restarted. At the end: every task ended once, success charged once and fail never,
 * no credit held, the ledger invariant holds, every callback arrived, and every result file downloads
 * (whole and by Range) through either API process, from S3 (nothing on local disk).
 * Writes a vitest-style JSON summary to the path given as the first argument (for .ci/run).
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { startS3Server } from '../packages/host/test/support/s3-server.js';
import { runCli, tempDataDir } from '../packages/host/test/support/spawn-server.js';
import { freePort, startGengate, type ClusterProcess } from './support/cluster-process.js';
import { scratchDatabase } from './support/scratch-database.js';
import { checkList, checkTaskOutcomes, waitUntilSettled } from './support/task-outcome-checks.js';

const TASKS = 300;
const SUBMIT_OVER_MS = 10_000;
const S3_PREFIX = 'cluster/results';
const checks = checkList();
const { check } = checks;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs fn over items, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await fn(item);
      }
    }),
  );
}

async function main(): Promise<void> {
  const started = Date.now();
  const db = await scratchDatabase();
  const s3 = await startS3Server();
  const received = new Map<string, number>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const id = (JSON.parse(body) as { task_id: string }).task_id;
      received.set(id, (received.get(id) ?? 0) + 1);
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const dataDir = tempDataDir();
  const apiPorts = [await freePort(), await freePort()] as const;
  const env = {
    DATABASE_URL: db.url,
    GENGATE_DATA_DIR: dataDir,
    // What a load balancer in front of the API processes would be; result URLs are built from it.
    PUBLIC_URL: `http://127.0.0.1:${apiPorts[0]}`,
    SANDBOX_LATENCY_MS: '200',
    SANDBOX_LATENCY_JITTER_MS: '2500',
    CALLBACK_ALLOW_PRIVATE: 'true',
    CALLBACK_RETRY_DELAY_SECONDS: '1',
    // A callback job of a killed worker expires this long plus a minute after it started (then it is retried).
    CALLBACK_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'warn',
    ...s3.env(S3_PREFIX),
  };
  // The first CLI run applies the migrations; the other users are created at once.
  const createUser = async (i: number) =>
    (JSON.parse(await runCli(['users', 'create', '--email', `cluster${i}@example.com`, '--credits', '10000'], env)) as { api_key: string }).api_key;
  const keys: string[] = [await createUser(0), ...(await Promise.all([1, 2, 3].map(createUser)))];
  // ROLE=api|worker (the roles of issue 13); RUN_WORKER=false also keeps an API process off the queue.
  const apiEnv = (i: 0 | 1) => ({ ...env, PORT: String(apiPorts[i]), ROLE: 'api', RUN_WORKER: 'false' });
  const workerEnv = { ...env, PORT: '0', ROLE: 'worker' };
  const [api0, api1, worker0, worker1] = await Promise.all([
    startGengate('api-0', apiEnv(0)),
    startGengate('api-1', apiEnv(1)),
    startGengate('worker-0', workerEnv),
    startGengate('worker-1', workerEnv),
  ]);
  const api: ClusterProcess[] = [api0, api1];
  const workers: ClusterProcess[] = [worker0, worker1];
  const workerOnly = (await fetch(`${workers[0]?.url}/api/v1/models`).catch(() => null))?.status === 404;
  console.log(`cluster up in ${Math.round((Date.now() - started) / 1000)} s: 2 API + 2 worker processes (${workerOnly ? 'workers serve no API' : 'workers also serve the API: ROLE=worker not known to this build'})`);

  const models = [
    ['sandbox.echo-chat', { prompt: 'cluster chat' }],
    ['sandbox.pixel-image', { prompt: 'cluster image', image_params: { width: 96, height: 96 } }],
    ['sandbox.motion-video', { prompt: 'cluster video', video_params: { duration: 5 } }],
    ['sandbox.always-fail', {}],
  ] as const;
  const owner = new Map<string, string>();
  let retriedSubmissions = 0;
  const submissions = Array.from({ length: TASKS }, async (_, i) => {
    const [model, body] = models[i % models.length] ?? models[0];
    const key = keys[i % keys.length] ?? '';
    await pause(Math.random() * SUBMIT_OVER_MS);
    // Round-robin; a submission cut off by a killed process is sent again, to the other one, with the same key.
    for (let attempt = 0; attempt < 8; attempt++) {
      const target = api[(i + attempt) % 2] as ClusterProcess;
      try {
        const res = await fetch(`${target.url}/api/v1/run/${model}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `cluster-${i}` },
          body: JSON.stringify({ ...body, ...(i % 2 === 0 ? { callback_url: hook } : {}) }),
        });
        const text = await res.text();
        if (res.status !== 200) console.log(`submission ${i} -> ${res.status} ${text}`);
        else owner.set((JSON.parse(text) as { task_id: string }).task_id, key);
        return res.status;
      } catch {
        retriedSubmissions++;
        await pause(100 + attempt * 200);
      }
    }
    return 0;
  });
  const kills: string[] = [];
  // The first worker and the second API process, each SIGKILLed twice while submissions arrive and started again.
  const killer = Promise.all([
    (async () => {
      for (let k = 0; k < 2; k++) {
        await pause(500 + Math.random() * 1_500);
        await workers[0]?.stop('SIGKILL');
        kills.push(`worker-0 at ${Math.round((Date.now() - started) / 1000)} s`);
        workers[0] = await startGengate('worker-0', workerEnv);
      }
    })(),
    (async () => {
      for (let k = 0; k < 2; k++) {
        await pause(1_000 + Math.random() * 2_000);
        await api[1]?.stop('SIGKILL');
        kills.push(`api-1 at ${Math.round((Date.now() - started) / 1000)} s`);
        api[1] = await startGengate('api-1', apiEnv(1));
      }
    })(),
  ]);
  const statuses = await Promise.all(submissions);
  console.log(`submissions done at ${Math.round((Date.now() - started) / 1000)} s`);
  await killer;
  console.log(`kills done at ${Math.round((Date.now() - started) / 1000)} s`);
  check(`all ${TASKS} submissions accepted`, statuses.every((s) => s === 200), `${statuses.filter((s) => s === 200).length} accepted, ${retriedSubmissions} resent after a crash`);

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await waitUntilSettled(client, 150_000);
  console.log(`settled at ${Math.round((Date.now() - started) / 1000)} s`);
  await checkTaskOutcomes(client, db.url, TASKS, new Set(received.keys()), check);
  const { rows: attempts } = await client.query<{ retried: number; dup_callbacks: number; stored: number; inline: number }>(
    `select (select count(*)::int from gengate.tasks where attempts > 1) as retried,
            (select count(*)::int from (select task_id from gengate.callback_attempts where delivered group by task_id having count(*) > 1) x) as dup_callbacks,
            (select count(*)::int from gengate.tasks t, jsonb_array_elements(t.outputs) o where t.status = 'success' and o->'inline' is null) as stored,
            (select count(*)::int from gengate.tasks t, jsonb_array_elements(t.outputs) o where t.status = 'success' and o->'inline' is not null) as inline`,
  );

  // Every result file, through both API processes: whole (the same bytes from each) and one range.
  const { rows: succeeded } = await client.query<{ id: string }>(`select id from gengate.tasks where status = 'success'`);
  let files = 0;
  const problems: string[] = [];
  await eachLimited(succeeded, 8, async ({ id }) => {
    const task = (await (await fetch(`${api[files % 2]?.url}/api/v1/run/tasks/${id}`, { headers: { Authorization: `Bearer ${owner.get(id) ?? ''}` } })).json()) as {
      result_urls?: string[];
    };
    if (!task.result_urls?.length) problems.push(`${id}: no result_urls`);
    for (const u of task.result_urls ?? []) {
      files++;
      const { pathname, search } = new URL(u);
      const bodies: Buffer[] = [];
      for (const p of api) {
        const res = await fetch(`${p.url}${pathname}${search}`);
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200 || body.length === 0) problems.push(`${p.name} ${pathname}: ${res.status}, ${body.length} bytes`);
        bodies.push(body);
      }
      if (bodies.length === 2 && !bodies[0]?.equals(bodies[1] ?? Buffer.alloc(0))) problems.push(`${pathname}: the two API processes served different bytes`);
      const part = await fetch(`${api[1]?.url}${pathname}${search}`, { headers: { Range: 'bytes=0-0' } });
      const first = Buffer.from(await part.arrayBuffer());
      if (part.status !== 206 || first.length !== 1 || first[0] !== bodies[0]?.[0]) problems.push(`${pathname}: Range bytes=0-0 gave ${part.status}`);
    }
  });
  console.log(`downloads done at ${Math.round((Date.now() - started) / 1000)} s`);
  check('every result file downloads through either API process (whole and by Range)', problems.length === 0 && files >= succeeded.length, `${files} files of ${succeeded.length} tasks; ${problems.slice(0, 3).join('; ')}`);

  const s3Client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  let objects = 0;
  let token: string | undefined;
  do {
    const page = await s3Client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${S3_PREFIX}/`, ...(token ? { ContinuationToken: token } : {}) }));
    objects += page.KeyCount ?? 0;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  s3Client.destroy();
  const localFiles = existsSync(join(dataDir, 'files')) ? readdirSync(join(dataDir, 'files')).length : 0;
  // Small results are kept with their task (INLINE_RESULT_MAX_BYTES); every other one is an S3 object.
  const stored = attempts[0]?.stored ?? 0;
  check(
    'result files live in S3 (those not kept with their task), none on a local disk',
    stored > 0 && objects >= stored && localFiles === 0,
    `${objects} objects under ${S3_PREFIX}/ for ${stored} stored results (${attempts[0]?.inline ?? 0} kept with their task), ${localFiles} local task folders`,
  );
  console.log(
    `chaos:cluster: SIGKILLed ${kills.join(', ')}; ${attempts[0]?.retried} tasks needed more than one attempt; ${attempts[0]?.dup_callbacks} callbacks delivered more than once (at-least-once); ${Math.round((Date.now() - started) / 1000)} s`,
  );

  await client.end();
  await Promise.all([...api, ...workers].map((p) => p.stop('SIGTERM')));
  receiver.close();
  await s3.close();
  await db.close();
}

const out = process.argv[2];
main()
  .catch((err: unknown) => check('chaos:cluster run completed', false, err instanceof Error ? err.message : String(err)))
  .finally(() => {
    const summary = checks.summary();
    if (out) writeFileSync(out, JSON.stringify(summary));
    console.log(`${summary.numPassedTests} passed, ${summary.numFailedTests} failed`);
    process.exit(summary.numFailedTests > 0 ? 1 : 0);
  });
