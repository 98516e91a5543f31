import { pngSize, type FakeUpstream } from '@gengate/testing';
import { createTestDatabase, describeHttpApiConformance, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_KEYS, startProviderFakes, type ProviderFakes } from './support/provider-fakes.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/**
 * The standalone host (`gengate serve`) with every real provider configured through its base-URL
 * setting to point at a fake of that provider: each provider and modality runs waiting -> success with
 * files served by gengate, a refused task fails with a readable message and no charge, and the black-box
 * HTTP conformance suite passes against this configuration.
 */
let db: TestDatabase;
let fakes: ProviderFakes;
let server: SpawnedServer;
let env: NodeJS.ProcessEnv;
let key: string;
let users = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  fakes = await startProviderFakes();
  env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '50', ...fakes.env };
  server = await spawnServer(env);
  key = (JSON.parse(await runCli(['users', 'create', '--email', 'providers@example.com', '--credits', '1000'], env)) as { api_key: string }).api_key;
});

afterAll(async () => {
  await server?.stop();
  await fakes?.close();
  await db?.drop();
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });

interface TaskBody {
  task_id: string;
  status: string;
  result_urls: string[];
  error_message: string | null;
}

async function submit(model: string, body: object): Promise<string> {
  const res = await api(`/run/${model}`, { method: 'POST', body: JSON.stringify(body) });
  const json = (await res.json()) as { code: number; status: string; task_id: string };
  expect(res.status, JSON.stringify(json)).toBe(200);
  expect(json).toMatchObject({ code: 200, status: 'waiting' });
  return json.task_id;
}

function finished(taskId: string): Promise<TaskBody> {
  return waitFor(
    async () => {
      const t = (await (await api(`/run/tasks/${taskId}`)).json()) as TaskBody;
      return t.status === 'success' || t.status === 'fail' ? t : null;
    },
    { timeoutMs: 30_000, intervalMs: 100, what: `task ${taskId} to end` },
  );
}

async function download(url: string): Promise<{ type: string; body: Buffer }> {
  expect(url.startsWith(`${server.url}/api/v1/files/`)).toBe(true);
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return { type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

const text = (expected: string) => (f: { type: string; body: Buffer }) => {
  expect(f.type).toBe('text/plain; charset=utf-8');
  expect(f.body.toString('utf8')).toBe(expected);
};
const png = (width: number, height: number) => (f: { type: string; body: Buffer }) => {
  expect(f.type).toContain('image/png');
  expect(pngSize(f.body)).toEqual({ width, height });
};

const CASES: readonly { model: string; fake: keyof Omit<ProviderFakes, 'env' | 'close'>; path: string; body: object; files: number; check: (f: { type: string; body: Buffer }) => void }[] = [
  { model: 'openai.gpt-4o-mini', fake: 'openai', path: '/v1/chat/completions', body: { prompt: 'Hello from OpenAI', llm_params: { max_tokens: 32 } }, files: 1, check: text('Echo: Hello from OpenAI') },
  { model: 'openai.gpt-image-2', fake: 'openai', path: '/v1/images/generations', body: { prompt: 'a fox', image_params: { aspect_ratio: '2:3', n: 2 }, provider_params: { quality: 'low' } }, files: 2, check: png(1024, 1536) },
  { model: 'anthropic.claude-haiku-5-5', fake: 'anthropic', path: '/v1/messages', body: { prompt: 'Hello from Anthropic', llm_params: { system: 'Be brief.' } }, files: 1, check: text('Echo: Hello from Anthropic') },
  { model: 'google.gemini-3.5-flash-lite', fake: 'google', path: '/v1beta/models/gemini-3.5-flash-lite:generateContent', body: { prompt: 'Hello from Google', llm_params: { temperature: 0.2 } }, files: 1, check: text('Echo: Hello from Google') },
  { model: 'google.gemini-3-pro-image', fake: 'google', path: '/v1beta/models/gemini-3-pro-image:generateContent', body: { prompt: 'a lighthouse', image_params: { aspect_ratio: '16:9', seed: 3 } }, files: 1, check: png(1376, 768) },
  { model: 'fakecompat.echo', fake: 'compat', path: '/compat/v1/chat/completions', body: { prompt: 'Hello from a compatible server' }, files: 1, check: text('Echo: Hello from a compatible server') },
];

describe('real providers through the standalone host (fakes configured by base URL)', () => {
  it.each(CASES)('$model: waiting -> success, result files served by gengate, the call made with the configured key', async (c) => {
    const fake: FakeUpstream = fakes[c.fake];
    const before = fake.calls.length;
    const taskId = await submit(c.model, c.body);
    const task = await finished(taskId);
    expect(task.status, task.error_message ?? '').toBe('success');
    expect(task.error_message).toBeNull();
    expect(task.result_urls).toHaveLength(c.files);
    for (const url of task.result_urls) c.check(await download(url));
    const calls = fake.calls.slice(before).filter((x) => x.path === c.path);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    const expectedKey = { openai: FAKE_KEYS.OPENAI_API_KEY, anthropic: FAKE_KEYS.ANTHROPIC_API_KEY, google: FAKE_KEYS.GOOGLE_GENERATIVE_AI_API_KEY, compat: FAKE_KEYS.FAKECOMPAT_API_KEY }[c.fake];
    for (const call of calls) expect(call.credential).toContain(expectedKey);
  });

  it('charges each successful task once, by what the provider reported', async () => {
    const tx = (await (await api('/billing/transactions?per_page=100')).json()) as { data: { payment_method: string; credits: number; description: string }[] };
    const usage = tx.data.filter((t) => t.payment_method === 'usage');
    expect(usage).toHaveLength(CASES.length);
    for (const u of usage) expect(u.credits).toBeLessThan(0);
    // GPT Image 2, 'a fox' at low 1024x1536, n 2: OpenAI's usage (fake) says 2 text tokens and 2 x 166 output
    // tokens: 2 x $5/M + 332 x $30/M = 9,970 micro-USD = 0.997 credits (held: 2 x $0.005 + 5 bytes x $5/M = 1.0025)
    expect(usage.find((u) => u.description.startsWith('openai.gpt-image-2'))?.credits).toBe(-0.997);
  });

  it('a refused task ends in fail with a readable error_message naming the provider, and charges nothing', async () => {
    const before = (await (await api('/billing/balance')).json()) as { credits: number; held_credits: number };
    const task = await finished(await submit('anthropic.claude-sonnet-5-5', { prompt: 'Please [fake:refuse] this' }));
    expect(task.status).toBe('fail');
    expect(task.result_urls).toEqual([]);
    expect(task.error_message).toMatch(/^Provider anthropic refused the request under its content policy: .+\. Change the prompt or inputs\. No credits were charged\.$/);
    expect(task.error_message).not.toContain(FAKE_KEYS.ANTHROPIC_API_KEY);
    const after = (await (await api('/billing/balance')).json()) as { credits: number; held_credits: number };
    expect(after.credits).toBe(before.credits);
    expect(after.held_credits).toBe(0);
  });

  it('lists the configured providers’ models as active, and shows their prices', async () => {
    const list = (await (await api('/models?provider=openai&provider=fakecompat&per_page=100')).json()) as { data: { id: string; is_active: boolean }[] };
    expect(list.data.length).toBe(8);
    expect(list.data.every((m) => m.is_active)).toBe(true);
    const pricing = (await (await api('/models/openai.gpt-image-2/pricing')).json()) as { prices: { unit: string; conditions: unknown; usd: number }[] };
    expect(pricing.prices).toContainEqual({ unit: 'image', resolution: null, conditions: { quality: 'high', size: '1024x1024' }, credits: 21.1, usd: 0.211 });
    expect(pricing.prices).toContainEqual({ unit: 'image', resolution: null, conditions: { quality: 'high', size: '1536x1024' }, credits: 16.5, usd: 0.165 });
    expect(pricing.prices).toContainEqual({ unit: '1M_text_input_tokens', resolution: null, conditions: null, credits: 500, usd: 5 });
  });

  it('never shows a configured key in the server’s output', async () => {
    const logged = await server.loggedOutput();
    for (const value of Object.values(FAKE_KEYS)) expect(logged).not.toContain(value);
    expect(logged).toContain('provider openai is active');
    expect(logged).toContain('provider fakecompat is active');
  });
});

describeHttpApiConformance('gengate standalone server with real providers (fakes)', {
  apiUrl: () => `${server.url}/api/v1`,
  async createUser(credits) {
    const out = await runCli(['users', 'create', '--email', `providers-conformance${++users}@example.com`, '--credits', String(credits)], env);
    return { apiKey: (JSON.parse(out) as { api_key: string }).api_key };
  },
  models: { chat: 'anthropic.claude-haiku-4-5', image: 'openai.gpt-image-2', video: 'sandbox.motion-video', failing: 'fakecompat.always-refuse' },
  taskTimeoutMs: 20_000,
});
