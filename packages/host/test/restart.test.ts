import { createTestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/** Stopping the host while a task is generating must not leave the task stuck. */
describe('host restart while a task is generating', () => {
  let db: { url: string; drop(): Promise<void> };
  let env: NodeJS.ProcessEnv;
  let key: string;
  const servers: SpawnedServer[] = [];

  const get = async (server: SpawnedServer, taskId: string) =>
    (await (await fetch(`${server.url}/api/v1/run/tasks/${taskId}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
      status: string;
      result_urls: string[];
    };

  async function submitVideo(server: SpawnedServer): Promise<string> {
    const res = await fetch(`${server.url}/api/v1/run/sandbox.motion-video`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'restart me', video_params: { duration: 5 } }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '2500', SHUTDOWN_GRACE_MS: '200' };
    key = (JSON.parse(await runCli(['users', 'create', '--email', 'restart@example.com', '--credits', '1000'], env)) as { api_key: string }).api_key;
  });

  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    await db?.drop();
  });

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`finishes the task after a ${signal} and a restart`, { timeout: 90_000 }, async () => {
      const first = await spawnServer(env);
      servers.push(first);
      const taskId = await submitVideo(first);
      await waitFor(async () => ((await get(first, taskId)).status === 'generating' ? true : null), {
        timeoutMs: 10_000,
        what: 'the task to start generating',
      });
      const code = await first.stop(signal);
      if (signal === 'SIGTERM') expect(code).toBe(0);
      const second = await spawnServer(env);
      servers.push(second);
      const task = await waitFor(
        async () => {
          const t = await get(second, taskId);
          return t.status === 'success' || t.status === 'fail' ? t : null;
        },
        { timeoutMs: 75_000, intervalMs: 200, what: 'the task to end after the restart' },
      );
      expect(task.status).toBe('success');
      expect(task.result_urls.length).toBe(1);
      await second.stop();
    });
  }
});
