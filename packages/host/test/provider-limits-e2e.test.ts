import { createTestDatabase, type TestDatabase } from '@gengate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderFakes, type ProviderFakes } from './support/provider-fakes.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/**
 * A per-provider limit of 2 concurrent calls, shared by two gengate processes on one database: 20
 * tasks submitted at once through both never put more than 2 calls in flight at the (slow) fake, as
 * the fake itself counts, and all 20 succeed.
 */
let db: TestDatabase;
let fakes: ProviderFakes;
const servers: SpawnedServer[] = [];
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  fakes = await startProviderFakes();
  const env = {
    DATABASE_URL: db.url,
    ...fakes.env,
    PROVIDER_MAX_CONCURRENCY: 'openai=2',
    WORKER_CONCURRENCY: '8',
    TASKS_RUNNING_PER_USER_CHAT: '100',
  };
  // one after the other: the first applies the migrations
  servers.push(await spawnServer({ ...env, GENGATE_DATA_DIR: tempDataDir() }));
  servers.push(await spawnServer({ ...env, GENGATE_DATA_DIR: tempDataDir() }));
  key = (JSON.parse(await runCli(['users', 'create', '--email', 'limits@example.com', '--credits', '1000'], { ...env, GENGATE_DATA_DIR: tempDataDir() })) as { api_key: string }).api_key;
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await fakes?.close();
  await db?.drop();
});

describe('per-provider concurrency across processes', () => {
  it('20 tasks at once through two processes: never more than 2 calls in flight at the fake, all 20 succeed', { timeout: 120_000 }, async () => {
    fakes.openai.reset();
    fakes.openai.latencyMs = 200;
    const submit = async (i: number) => {
      const server = servers[i % 2];
      if (!server) throw new Error('no server');
      const res = await fetch(`${server.url}/api/v1/run/openai.gpt-4.1-mini`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt: `task ${i}`, llm_params: { max_tokens: 8 } }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { task_id: string }).task_id;
    };
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(i)));
    const statuses = await waitFor(
      async () => {
        const all = await Promise.all(
          ids.map(async (id) => ((await (await fetch(`${servers[0]?.url}/api/v1/run/tasks/${id}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { status: string }).status),
        );
        return all.every((s) => s === 'success' || s === 'fail') ? all : null;
      },
      { timeoutMs: 90_000, intervalMs: 250, what: 'all 20 tasks to end' },
    );
    expect(statuses.filter((s) => s === 'success')).toHaveLength(20);
    expect(fakes.openai.callsTo('POST', '/v1/chat/completions')).toHaveLength(20);
    expect(fakes.openai.maxInFlight).toBeLessThanOrEqual(2);
    expect(fakes.openai.maxInFlight).toBeGreaterThanOrEqual(1);
    // Which process ran which call is up to the queue; the limit holds whichever it is.
    const served = servers.map((s) => s.output().split('task succeeded').length - 1);
    console.info(`fake OpenAI: ${fakes.openai.calls.length} calls, at most ${fakes.openai.maxInFlight} in flight; tasks ended by each process: ${served.join(', ')}`);
  });
});
