import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compatDeclaration, NO_PROVIDER_SETTINGS } from './support/provider-fakes.js';
import { runCli, spawnServer, tempDataDir, type SpawnedServer } from './support/spawn-server.js';

/**
 * With no provider credentials, the real providers' models are listed inactive, a run on one is a 4xx
 * naming the missing setting, and nothing is held or created.
 */
let db: TestDatabase;
let server: SpawnedServer;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const env = {
    DATABASE_URL: db.url,
    GENGATE_DATA_DIR: tempDataDir(),
    ...NO_PROVIDER_SETTINGS,
    // a compatible provider whose key variable is declared but not set
    OPENAI_COMPATIBLE_PROVIDERS: JSON.stringify(compatDeclaration('http://127.0.0.1:9/compat/v1')),
    FAKECOMPAT_API_KEY: '',
  };
  server = await spawnServer(env);
  key = (JSON.parse(await runCli(['users', 'create', '--email', 'unconfigured@example.com', '--credits', '100'], env)) as { api_key: string }).api_key;
});

afterAll(async () => {
  await server?.stop();
  await db?.drop();
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });

describe('real providers without credentials', () => {
  it.each([
    ['openai', 6],
    ['anthropic', 3],
    ['google', 7],
    ['fal', 5],
    ['replicate', 5],
    ['runway', 3],
    ['fakecompat', 2],
  ])('GET /models lists the %s models (%d), all inactive', async (provider, count) => {
    const res = await api(`/models?provider=${provider}&per_page=100`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { id: string; provider: string; is_active: boolean }[]; total: number };
    expect(body.total).toBe(count);
    expect(body.data.every((m) => m.provider === provider && m.is_active === false)).toBe(true);
  });

  it.each([
    ['openai.gpt-4.1', 'OPENAI_API_KEY', { prompt: 'hi' }],
    ['openai.gpt-image-2', 'OPENAI_API_KEY', { prompt: 'a fox' }],
    ['anthropic.claude-sonnet-5-5', 'ANTHROPIC_API_KEY', { prompt: 'hi' }],
    ['google.gemini-3-pro-image', 'GOOGLE_GENERATIVE_AI_API_KEY', { prompt: 'a fox' }],
    ['fakecompat.echo', 'FAKECOMPAT_API_KEY', { prompt: 'hi' }],
  ])('POST /run/%s is a 422 naming %s; nothing is held or created', async (model, setting, body) => {
    const res = await api(`/run/${model}`, { method: 'POST', body: JSON.stringify(body) });
    const json = (await res.json()) as { code: number; message: string; error: { type: string; param: string } };
    expect(res.status).toBe(422);
    expect(json.code).toBe(422);
    expect(json.error).toEqual({ type: 'provider_not_configured', param: 'model_id' });
    expect(json.message).toContain(setting);
    const balance = (await (await api('/billing/balance')).json()) as { credits: number; held_credits: number };
    expect(balance).toMatchObject({ credits: 100, held_credits: 0 });
    const tx = (await (await api('/billing/transactions')).json()) as { total: number };
    expect(tx.total).toBe(1); // the starting credits only
  });

  it('the sandbox still runs (the README commands need no credentials)', async () => {
    const res = await api('/run/sandbox.echo-chat', { method: 'POST', body: JSON.stringify({ prompt: 'hi' }) });
    expect(res.status).toBe(200);
  });

  it('says at start-up which providers are inactive and why', () => {
    const out = server.output();
    expect(out).toContain('provider openai is inactive: Provider openai is not configured: the operator must set OPENAI_API_KEY.');
    expect(out).toContain('provider fakecompat is inactive: Provider fakecompat is not configured: the operator must set FAKECOMPAT_API_KEY.');
  });
});
