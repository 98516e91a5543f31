import { once } from 'node:events';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startRecordingReceiver } from './support/callback-receivers.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

const GRACE_MS = 3_000;

/** SIGTERM ends the process within SHUTDOWN_GRACE_MS in total; what it cut off is finished by the next process. */
describe('shutdown within SHUTDOWN_GRACE_MS', () => {
  let db: TestDatabase | null = null;
  const servers: SpawnedServer[] = [];
  const closers: (() => Promise<void>)[] = [];

  afterAll(async () => {
    for (const s of servers) {
      if (s.process.exitCode === null && s.process.signalCode === null) s.process.kill('SIGKILL');
    }
    for (const c of closers) await c();
    await db?.drop();
  });

  it('exits within the grace (+1 s) with a stuck callback and a running video; the next start finishes both', { timeout: 120_000 }, async () => {
    db = await createTestDatabase();
    // Hangs the first callback request (a stuck receiver), answers 200 from then on.
    const receiver = await startRecordingReceiver({ hangFirst: 1 });
    closers.push(receiver.close);
    const env = {
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: tempDataDir(),
      SANDBOX_LATENCY_MS: '4000',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      CALLBACK_ALLOW_PRIVATE: 'true',
      CALLBACK_TIMEOUT_MS: '60000',
      CALLBACK_RETRY_DELAY_SECONDS: '1',
    };
    const key = (JSON.parse(await runCli(['users', 'create', '--email', 'grace@example.com', '--credits', '100'], env)) as { api_key: string }).api_key;
    const first = await spawnServer(env);
    servers.push(first);
    const api = (base: string, path: string, init: RequestInit = {}) =>
      fetch(`${base}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });
    const submit = async (model: string, body: object) =>
      ((await (await api(first.url, `/run/${model}`, { method: 'POST', body: JSON.stringify(body) })).json()) as { task_id: string }).task_id;

    const chatId = await submit('sandbox.echo-chat', { prompt: 'call me back', callback_url: receiver.url });
    await waitFor(async () => (receiver.count() >= 1 ? true : null), { timeoutMs: 20_000, what: 'the stuck callback request' });
    const videoId = await submit('sandbox.motion-video', { prompt: 'a long take', video_params: { duration: 10, resolution: '1080p' } });
    await waitFor(async () => (((await (await api(first.url, `/run/tasks/${videoId}`)).json()) as { status: string }).status === 'generating' ? true : null), {
      timeoutMs: 10_000,
      what: 'the video to be generating',
    });

    const started = Date.now();
    const exited = once(first.process, 'exit') as Promise<[number | null]>;
    first.process.kill('SIGTERM');
    const killer = setTimeout(() => first.process.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(killer);
    const elapsed = Date.now() - started;
    expect(elapsed, `exit took ${elapsed} ms`).toBeLessThan(GRACE_MS + 1_000);

    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const status = async (id: string) => (await c.query<{ status: string }>('select status from gengate.tasks where id = $1', [id])).rows[0]?.status;
      expect(await status(videoId)).toBe('generating');

      const second = await spawnServer(env);
      servers.push(second);
      await waitFor(async () => ((await status(videoId)) === 'success' ? true : null), { timeoutMs: 40_000, intervalMs: 100, what: 'the video to finish on the next start' });
      await waitFor(async () => (receiver.receivedAt.has(chatId) ? true : null), { timeoutMs: 30_000, intervalMs: 100, what: 'the callback to be retried' });
      // The receiver has the POST before the sender has its answer and records the attempt: wait for that record.
      const rows = await waitFor(
        async () => {
          const r = (await c.query<{ delivered: boolean }>('select delivered from gengate.callback_attempts where task_id = $1 order by id', [chatId])).rows;
          return r.at(-1)?.delivered ? r : null;
        },
        { timeoutMs: 30_000, intervalMs: 100, what: 'the delivered attempt to be recorded' },
      );
      expect(rows.at(-1)?.delivered).toBe(true);
      expect(await second.stop()).toBe(0);
    } finally {
      await c.end();
    }
  });
});
