import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { FalAdapter, ReplicateAdapter } from '@gengate/adapters';
import { FAKE_FILE_PATH, FakeFal, FakeReplicate, fakeMp4, type FakeJob, type FakeJobBook, type FakeUpstream } from '@gengate/testing';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { startS3Server, type TestS3Server } from './support/s3-server.js';
import { tempDataDir, waitFor } from './support/spawn-server.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const ROUNDS = 20;
const VIDEO = Buffer.from(fakeMp4());

interface TaskBody {
  status: string;
  result_urls: string[];
  error_message: string | null;
}

/**
 * A paid result is never lost when completions race (issue 18, item 1): fal and Replicate retry their
 * webhooks, and a status check may be downloading the result when the webhook lands. Both races are made
 * deterministic with the fakes: webhooks are posted by the test (kept by the fake), and result downloads
 * are held open until both attempts are downloading. Every task must end `success`, charged once, with
 * every result file served (200, the upstream's bytes). Run with the local blob store and with S3.
 */
describe.each(['local', 's3'] as const)('racing completions of a long-running task (%s blob store)', (store) => {
  let db: TestDatabase;
  let s3: TestS3Server | null = null;
  let dataDir: string;
  const prefix = `race-${Date.now()}`;
  let server: RunningServer;
  let fal: FakeFal;
  let replicate: FakeReplicate;

  beforeAll(async () => {
    db = await createTestDatabase();
    fal = await FakeFal.start({ durationMs: 60_000 });
    replicate = await FakeReplicate.start({ durationMs: 60_000 });
    fal.jobs.keepWebhooks();
    replicate.jobs.keepWebhooks();
    if (store === 's3') s3 = await startS3Server();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: (dataDir = tempDataDir()),
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...(s3 ? s3.env(prefix) : {}),
    };
    // Quick status checks, so that a check meets the job's end (and downloads its result) within a round.
    const poll = { firstMs: 20, maxMs: 100 };
    const adapters = [
      new FalAdapter({ apiKey: 'fal-race-key-0123456789', baseURL: fal.runUrl, queueURL: fal.queueUrl, jwksUrl: fal.jwksUrl, poll }),
      new ReplicateAdapter({ apiKey: 'r8_racetoken0123456789', baseURL: replicate.baseUrl, webhookSecret: replicate.webhookSecret, poll }),
    ];
    server = await startServer(loadConfig(env), { logger: pino({ level: 'silent' }), adapters });
  }, 60_000);

  afterAll(async () => {
    fal?.upstream.release();
    replicate?.upstream.release();
    await server?.close();
    await Promise.all([fal?.close(), replicate?.close()]);
    await s3?.close();
    await db?.drop();
  });

  const cases = [
    { name: 'fal', model: 'fal.veo3-fast', body: { prompt: 'a kite over the dunes', video_params: { duration: 4 } }, fake: () => fal },
    { name: 'replicate', model: 'replicate.hailuo-02', body: { prompt: 'a kite over the dunes', video_params: { duration: 6 } }, fake: () => replicate },
  ];

  async function newUser(email: string): Promise<string> {
    return (await server.gengate.admin.createUser({ email, credits: 100_000 })).api_key;
  }

  const api = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });

  async function submit(key: string, c: (typeof cases)[number], jobs: FakeJobBook): Promise<{ taskId: string; job: FakeJob }> {
    const res = await api(key, `/run/${c.model}`, { method: 'POST', body: JSON.stringify(c.body) });
    expect(res.status).toBe(200);
    const { task_id: taskId } = (await res.json()) as { task_id: string };
    const job = await waitFor(async () => [...jobs.jobs.values()].find((j) => j.webhookUrl?.endsWith(`task=${taskId}`)) ?? null, {
      timeoutMs: 10_000,
      intervalMs: 10,
      what: `the upstream job of ${taskId}`,
    });
    return { taskId, job };
  }

  /** The status checks the gateway has made of this job (the handle is saved before the first). */
  const checksOf = (upstream: FakeUpstream, job: FakeJob) =>
    upstream.calls.filter((call) => call.method === 'GET' && call.path.includes(job.id) && !FAKE_FILE_PATH.test(call.path)).length;
  const downloadsHeld = (upstream: FakeUpstream, job: FakeJob) => upstream.held.filter((call) => FAKE_FILE_PATH.test(call.path) && call.path.includes(job.id)).length;

  const postWebhook = async (message: { url: string; headers: Readonly<Record<string, string>>; body: string }) => {
    const res = await fetch(message.url, { method: 'POST', headers: message.headers, body: message.body });
    return { status: res.status, body: (await res.json()) as { received: boolean; applied: boolean; reason: string | null } };
  };

  /** The names of the files the blob store holds for a task. */
  async function storedFiles(taskId: string): Promise<string[]> {
    if (!s3) return readdirSync(join(dataDir, 'files', taskId)).sort();
    const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    try {
      const page = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${prefix}/${taskId}/` }));
      return (page.Contents ?? []).map((o) => (o.Key ?? '').slice(`${prefix}/${taskId}/`.length)).sort();
    } finally {
      client.destroy();
    }
  }

  /**
   * Ends `success`, every result file answers 200 with the upstream's bytes, it was charged exactly once,
   * and the store holds the task's result files and nothing else (a losing attempt removed what it wrote).
   */
  async function expectPaidAndKept(key: string, taskId: string): Promise<void> {
    const task = await waitFor(
      async () => {
        const t = (await (await api(key, `/run/tasks/${taskId}`)).json()) as TaskBody;
        return t.status === 'success' || t.status === 'fail' ? t : null;
      },
      { timeoutMs: 15_000, intervalMs: 20, what: `task ${taskId} to end` },
    );
    expect(task.status, JSON.stringify(task)).toBe('success');
    expect(task.result_urls).toHaveLength(1);
    for (const url of task.result_urls) {
      const file = await fetch(url);
      expect(file.status, `GET ${url}`).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(VIDEO)).toBe(true);
    }
    const tx = (await (await api(key, '/billing/transactions?per_page=100')).json()) as { data: { task_id: string | null; payment_method: string; credits: number }[] };
    const usage = tx.data.filter((t) => t.task_id === taskId && t.payment_method === 'usage');
    expect(usage).toHaveLength(1);
    expect(usage[0]?.credits).toBeLessThan(0);
    // The losing attempt deletes its own files after the winner's commit: wait for that, then compare.
    const names = task.result_urls.map((u) => new URL(u).pathname.split('/').at(-1) ?? '');
    const stored = await waitFor(
      async () => {
        const now = await storedFiles(taskId);
        return now.length <= names.length ? now : null;
      },
      { timeoutMs: 10_000, intervalMs: 20, what: `the losing attempt of ${taskId} to remove its files` },
    );
    expect(stored).toEqual(names);
  }

  it.each(cases)(`$name: the same signed completion webhook posted twice at once, ${ROUNDS} rounds`, async (c) => {
    const fake = c.fake();
    fake.jobs.durationMs = 60_000; // still running when polled: only the webhook ends the task
    const key = await newUser(`twice-${c.name}-${store}@example.com`);
    const before = ((await (await api(key, '/billing/balance')).json()) as { credits: number }).credits;
    let charged = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { taskId, job } = await submit(key, c, fake.jobs);
      await fake.upstream.waitUntil(() => checksOf(fake.upstream, job) >= 1, 10_000, `a status check of ${job.id}`);
      const message = await fake.jobs.webhookMessage(job);
      if (!message) throw new Error('the fake built no webhook');
      const answers = await Promise.all([postWebhook(message), postWebhook(message)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      await expectPaidAndKept(key, taskId);
      // Applied once: the other delivery is acknowledged and changes nothing.
      expect(answers.filter((a) => a.body.applied), JSON.stringify(answers)).toHaveLength(1);
      const tx = (await (await api(key, '/billing/transactions?per_page=100')).json()) as { data: { task_id: string | null; credits: number }[] };
      charged -= tx.data.find((t) => t.task_id === taskId)?.credits ?? 0;
    }
    const after = ((await (await api(key, '/billing/balance')).json()) as { credits: number }).credits;
    expect(after).toBeCloseTo(before - charged, 6);
  }, 120_000);

  it.each(cases)(`$name: the webhook lands while a status check downloads the result, ${ROUNDS} rounds`, async (c) => {
    const fake = c.fake();
    fake.jobs.durationMs = 50; // ended by the first checks, which then download the result
    const key = await newUser(`during-${c.name}-${store}@example.com`);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        fake.upstream.hold((call) => FAKE_FILE_PATH.test(call.path));
        const { taskId, job } = await submit(key, c, fake.jobs);
        // A status check saw the job end and is downloading its result: held open.
        await fake.upstream.waitUntil(() => downloadsHeld(fake.upstream, job) === 1, 10_000, `a status check downloading ${job.id}`);
        const message = await fake.jobs.webhookMessage(job);
        if (!message) throw new Error('the fake built no webhook');
        const answer = await postWebhook(message);
        expect(answer).toEqual({ status: 200, body: { received: true, applied: true, reason: null } });
        // The webhook's own check downloads the result too; then both downloads end.
        await fake.upstream.waitUntil(() => downloadsHeld(fake.upstream, job) === 2, 10_000, `the webhook's check downloading ${job.id}`);
        fake.upstream.release();
        await expectPaidAndKept(key, taskId);
      }
    } finally {
      fake.upstream.release();
    }
  }, 120_000);
});
