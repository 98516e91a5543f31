import Anthropic from '@anthropic-ai/sdk';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderFakes, type ProviderFakes } from './support/provider-fakes.js';
import { runCli, spawnServer, tempDataDir, type SpawnedServer } from './support/spawn-server.js';

/**
 * Anthropic's Messages dialect on the standalone host (`gengate serve` on PostgreSQL), driven by the official
 * `@anthropic-ai/sdk`: a Claude model through the Anthropic fake and the sandbox, streamed and not, each call
 * a gengate task listed by /api/v1 and charged in the ledger.
 */
let db: TestDatabase;
let fakes: ProviderFakes;
let server: SpawnedServer;
let key: string;
let client: Anthropic;

beforeAll(async () => {
  db = await createTestDatabase();
  fakes = await startProviderFakes();
  const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '30', ...fakes.env };
  server = await spawnServer(env);
  key = (JSON.parse(await runCli(['users', 'create', '--email', 'anthropic-e2e@example.com', '--credits', '1000'], env)) as { api_key: string }).api_key;
  client = new Anthropic({ baseURL: server.directUrl, apiKey: key, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await fakes?.close();
  await db?.drop();
});

const api = (path: string) => fetch(`${server.directUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });

describe('POST /v1/messages on gengate serve', () => {
  it('answers Claude through the fake and streams the sandbox; both are tasks, charged in the ledger', async () => {
    const message = await client.messages.create({ model: 'claude-haiku-5-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello from the SDK' }] });
    expect(message).toMatchObject({ type: 'message', model: 'anthropic.claude-haiku-5-5', stop_reason: 'end_turn' });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Hello from the SDK') });
    // The SDK's own anthropic-version (1.14 sends 2026-10-21) reaches the upstream unchanged, not the AI SDK's default.
    const version = fakes.anthropic.callsTo('POST', '/v1/messages').at(-1)?.headers['anthropic-version'];
    expect(version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(version).not.toBe('2023-06-01');

    const stream = client.messages.stream({ model: 'sandbox.echo-chat', max_tokens: 64, messages: [{ role: 'user', content: 'stream please' }] });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('stream please') });

    for (const m of [message, final]) {
      const task = (await (await api(`/run/tasks/${m.id.replace(/^msg_/, '')}`)).json()) as { status: string };
      expect(task.status).toBe('success');
    }
    const ledger = (await (await api('/billing/transactions?per_page=100')).json()) as { data: { payment_method: string }[] };
    expect(ledger.data.filter((t) => t.payment_method === 'usage')).toHaveLength(2);
    expect((await client.messages.countTokens({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'Hello' }] })).input_tokens).toBe(2);
  });
});
