import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderFakes, type ProviderFakes } from './support/provider-fakes.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/**
 * /v1 against a provider fake (the fake OpenAI) rather than the sandbox: the upstream breaking its
 * connection mid-stream (https://platform.openai.com/docs/api-reference/chat-streaming: chunks, then the
 * connection lost before `data: [DONE]`), and the provider's concurrency limit (PROVIDER_MAX_CONCURRENCY,
 * docs/openai-compatible.md: "503 with Retry-After when full"), on the spawned standalone host.
 */
let db: TestDatabase;
let fakes: ProviderFakes;
let server: SpawnedServer;
let env: NodeJS.ProcessEnv;
let key: string;
let client: OpenAI;

beforeAll(async () => {
  db = await createTestDatabase();
  fakes = await startProviderFakes();
  env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), PROVIDER_MAX_CONCURRENCY: 'openai=1', ...fakes.env };
  server = await spawnServer(env);
  key = (JSON.parse(await runCli(['users', 'create', '--email', 'v1-faults@example.com', '--credits', '1000'], env)) as { api_key: string }).api_key;
  client = new OpenAI({ baseURL: `${server.directUrl}/v1`, apiKey: key, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await fakes?.close();
  await db?.drop();
});

const api = async <T>(path: string): Promise<T> => (await (await fetch(`${server.url}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as T;

interface Transaction {
  credits: number;
  payment_method: string;
}

async function usageCharges(): Promise<Transaction[]> {
  return (await api<{ data: Transaction[] }>('/billing/transactions?per_page=100')).data.filter((t) => t.payment_method === 'usage');
}

const finished = (taskId: string) =>
  waitFor(
    async () => {
      const t = await api<{ status: string }>(`/run/tasks/${taskId}`);
      return t.status === 'success' || t.status === 'fail' ? t : null;
    },
    { timeoutMs: 10_000, intervalMs: 50, what: `task ${taskId} to end` },
  );

describe('an OpenAI upstream dropping its connection mid-stream', () => {
  it('ends the client stream with an error event and charges what was produced, less than the hold and the whole answer', async () => {
    const body = { model: 'openai.gpt-4o-mini', messages: [{ role: 'user' as const, content: 'one two three four five six seven eight' }], max_tokens: 64 };
    const whole = await client.chat.completions.create(body);
    const wholeCharge = (await usageCharges())[0]?.credits ?? 0;
    expect(whole.usage?.completion_tokens).toBeGreaterThan(4);

    // The role chunk and three word deltas ("Echo:", " one", " two"), then the connection is broken.
    fakes.openai.failNext({ kind: 'cut-stream', events: 4, then: 'drop' }, { match: (c) => c.path === '/v1/chat/completions' });
    const stream = await client.chat.completions.create({ ...body, stream: true });
    const texts: string[] = [];
    let id = '';
    const error = await (async () => {
      try {
        for await (const c of stream) {
          id = c.id;
          texts.push(c.choices[0]?.delta.content ?? '');
        }
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(texts.join('')).toBe('Echo: one two');
    const taskId = id.replace(/^chatcmpl-/, '');
    expect((await finished(taskId)).status).toBe('success');
    const charge = await waitFor(async () => (await usageCharges()).find((t, i, all) => all.length >= 2 && i === 0), { timeoutMs: 10_000, intervalMs: 50, what: 'the broken stream to be charged' });
    expect(charge.credits).toBeLessThan(0);
    expect(Math.abs(charge.credits)).toBeLessThan(Math.abs(wholeCharge));
    // Never the whole hold: the account holds nothing once the task settled.
    expect((await api<{ held_credits: number }>('/billing/balance')).held_credits).toBe(0);
  });
});

describe('the provider concurrency limit on /v1 (PROVIDER_MAX_CONCURRENCY=openai=1)', () => {
  it('refuses a second call while the first holds the only upstream slot: 503 with Retry-After, nothing charged; served again once it ends', async () => {
    const before = (await usageCharges()).length;
    fakes.openai.hold((c) => c.path === '/v1/chat/completions');
    const first = client.chat.completions.create({ model: 'openai.gpt-4o-mini', messages: [{ role: 'user', content: 'first' }], max_tokens: 16 });
    await fakes.openai.waitUntil(() => fakes.openai.held.length === 1, 10_000, 'the first call to be held upstream');

    const second = await fetch(`${server.directUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'openai.gpt-4o-mini', messages: [{ role: 'user', content: 'second' }], max_tokens: 16 }),
    });
    const refusal = (await second.json()) as { error: { type: string; code: string | null; message: string } };
    expect(second.status).toBe(503);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refusal.error).toMatchObject({ type: expect.any(String), message: expect.any(String) });
    expect(fakes.openai.held).toHaveLength(1);
    expect(fakes.openai.callsTo('POST', '/v1/chat/completions').filter((c) => JSON.stringify(c.body).includes('second'))).toHaveLength(0);

    fakes.openai.release();
    expect((await first).choices[0]?.message.content).toBe('Echo: first');
    const third = await client.chat.completions.create({ model: 'openai.gpt-4o-mini', messages: [{ role: 'user', content: 'third' }], max_tokens: 16 });
    expect(third.choices[0]?.message.content).toBe('Echo: third');
    // Two charges (first, third); the refused call was charged nothing.
    expect((await usageCharges()).length).toBe(before + 2);
  });
});
