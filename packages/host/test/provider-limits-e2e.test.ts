import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_KEYS, startProviderFakes, type ProviderFakes } from './support/provider-fakes.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/**
 * A per-provider limit of 2 concurrent calls, shared by two gengate processes on one database. The fake
 * OpenAI holds every call open until the test releases it, and each process calls it with its own key, so
 * the fake itself tells which process has which call in flight. Process A runs one upstream call at a
 * time (WORKER_CONCURRENCY=1) and takes the first task; once its call is held, process B (8 workers) is
 * started and 19 more tasks arrive: the second call in flight can only be B's, and B, with idle workers
 * and ready tasks, gets no third. Then the calls are released: all 20 succeed, never more than 2 in flight.
 */
const KEY_A = `${FAKE_KEYS.OPENAI_API_KEY}-process-a`;
const KEY_B = `${FAKE_KEYS.OPENAI_API_KEY}-process-b`;

let db: TestDatabase;
let fakes: ProviderFakes;
let env: NodeJS.ProcessEnv;
const servers: SpawnedServer[] = [];
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  fakes = await startProviderFakes();
  env = { DATABASE_URL: db.url, ...fakes.env, PROVIDER_MAX_CONCURRENCY: 'openai=2', TASKS_RUNNING_PER_USER_CHAT: '100' };
  // Process A first: it applies the migrations. Process B is started by the test, once A's call is held.
  servers.push(await spawnServer({ ...env, OPENAI_API_KEY: KEY_A, WORKER_CONCURRENCY: '1', GENGATE_DATA_DIR: tempDataDir() }));
  key = (JSON.parse(await runCli(['users', 'create', '--email', 'limits@example.com', '--credits', '1000'], { ...env, GENGATE_DATA_DIR: tempDataDir() })) as { api_key: string }).api_key;
});

afterAll(async () => {
  fakes?.openai.release();
  for (const s of servers) await s.stop();
  await fakes?.close();
  await db?.drop();
});

async function submit(server: SpawnedServer | undefined, i: number): Promise<string> {
  if (!server) throw new Error('no server');
  const res = await fetch(`${server.url}/api/v1/run/openai.gpt-4.1-mini`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ prompt: `task ${i}`, llm_params: { max_tokens: 8 } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { task_id: string }).task_id;
}

const byProcess = (credentials: readonly (string | null)[]) => ({
  a: credentials.filter((c) => c === `Bearer ${KEY_A}`).length,
  b: credentials.filter((c) => c === `Bearer ${KEY_B}`).length,
});

describe('per-provider concurrency across processes', () => {
  it('20 tasks through two processes: both have calls in flight at once, never more than 2 in total, all 20 succeed', { timeout: 120_000 }, async () => {
    const openai = fakes.openai;
    openai.reset();
    openai.hold();
    const [a] = servers;
    const ids = [await submit(a, 0)];
    await openai.waitUntil(() => openai.held.length === 1, 30_000, 'process A’s first call');
    expect(byProcess(openai.held.map((c) => c.credential))).toEqual({ a: 1, b: 0 });

    const b = await spawnServer({ ...env, OPENAI_API_KEY: KEY_B, WORKER_CONCURRENCY: '8', GENGATE_DATA_DIR: tempDataDir() });
    servers.push(b);
    ids.push(...(await Promise.all(Array.from({ length: 19 }, (_, i) => submit(i % 2 === 0 ? b : a, i + 1)))));
    // A's only worker is busy with the held call: the second call in flight is B's.
    await openai.waitUntil(() => openai.held.length === 2, 30_000, 'a second call in flight');
    expect(byProcess(openai.held.map((c) => c.credential))).toEqual({ a: 1, b: 1 });
    expect(openai.inFlight).toBe(2);

    openai.release();
    const statuses = await waitFor(
      async () => {
        const all = await Promise.all(
          ids.map(async (id) => ((await (await fetch(`${a?.url}/api/v1/run/tasks/${id}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { status: string }).status),
        );
        return all.every((s) => s === 'success' || s === 'fail') ? all : null;
      },
      { timeoutMs: 90_000, intervalMs: 250, what: 'all 20 tasks to end' },
    );
    expect(statuses.filter((s) => s === 'success')).toHaveLength(20);
    const calls = openai.callsTo('POST', '/v1/chat/completions');
    expect(calls).toHaveLength(20);
    expect(openai.maxInFlight).toBe(2);
    const made = byProcess(calls.map((c) => c.credential));
    expect(made.a + made.b).toBe(20);
    console.info(`fake OpenAI: ${calls.length} calls, at most ${openai.maxInFlight} in flight; calls made by process A (1 worker): ${made.a}, by process B (8 workers): ${made.b}`);
  });
});
