import { normalizeRunRequest, PriceBook, type RunRequest } from '@gengate/core/adapter';
import { describeAdapterConformance, describeOneRequestPerAttempt, describeParameterTable, describeWorkerRetry, kitCall, openAIFaults, startFakeOpenAI } from '@gengate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenAICompatibleAdapter } from './compatible-adapter.js';
import { compatibleProvidersSchema, type CompatibleProviderConfig } from './compatible-config.js';

const KEY = 'sk-or-v1-test0123456789abcdef';
// Two servers at once: an OpenRouter-like gateway with a key that reports its own cost, and a local server without a key.
const router = await startFakeOpenAI({ prefix: '/api/v1', reportCost: { microUsdPerToken: 3 } });
const local = await startFakeOpenAI({ refusingModels: ['always-refuse'] });
afterAll(async () => {
  await router.close();
  await local.close();
});

const [routerConfig, localConfig] = compatibleProvidersSchema.parse([
  {
    id: 'openrouter',
    name: 'OpenRouter',
    baseURL: `${router.url}/api/v1`,
    apiKeyEnv: 'OPENROUTER_API_KEY',
    models: [
      {
        id: 'llama-3.3-70b',
        upstreamModel: 'meta-llama/llama-3.3-70b-instruct',
        name: 'Llama 3.3 70B Instruct',
        capabilities: { maxOutputTokens: 16_384, contextWindow: 131_072 },
        pricing: { inputPerMillionTokens: 130_000, outputPerMillionTokens: 400_000 },
        priceSource: { url: 'https://openrouter.ai/meta-llama/llama-3.3-70b-instruct', retrievedOn: '2026-11-23' },
      },
    ],
  },
  {
    id: 'local-llm',
    name: 'Local Ollama',
    baseURL: `${local.url}/v1`,
    models: [
      {
        id: 'llama3.2-3b',
        upstreamModel: 'llama3.2:3b',
        name: 'Llama 3.2 3B (local)',
        capabilities: { maxOutputTokens: 4_096, defaultMaxTokens: 512, temperature: null, supportsTopP: false, supportsSystem: false },
        pricing: { inputPerMillionTokens: 0, outputPerMillionTokens: 0 },
        priceSource: { url: 'https://ollama.com/library/llama3.2', retrievedOn: '2026-11-23', note: 'Runs on the operator’s own hardware.' },
      },
      { id: 'always-refuse', name: 'Refusing model', capabilities: { maxOutputTokens: 64 }, pricing: { inputPerMillionTokens: 1, outputPerMillionTokens: 1 }, priceSource: { url: 'https://example.com/prices', retrievedOn: '2026-11-23' } },
    ],
  },
]) as [CompatibleProviderConfig, CompatibleProviderConfig];

const routerAdapter = () => createOpenAICompatibleAdapter(routerConfig, { apiKey: KEY });
const localAdapter = () => createOpenAICompatibleAdapter(localConfig);
const modelOf = (adapter: ReturnType<typeof routerAdapter>, id: string) => {
  const m = adapter.models.find((x) => x.id === id);
  if (!m) throw new Error(id);
  return m;
};

describeAdapterConformance('openai-compatible (openrouter)', { adapter: routerAdapter, upstream: router, credential: KEY });
describeOneRequestPerAttempt('openai-compatible', { adapter: routerAdapter, upstream: router });
describeAdapterConformance('openai-compatible (local, no key)', { adapter: localAdapter, upstream: local, failingModels: ['local-llm.always-refuse'] });

describe('openai-compatible: two providers from configuration', () => {
  it('declares each provider’s models under its own id, with the declared capabilities and prices', () => {
    expect(routerAdapter().providerId).toBe('openrouter');
    expect(routerAdapter().models.map((m) => m.id)).toEqual(['openrouter.llama-3.3-70b']);
    expect(localAdapter().models.map((m) => m.id)).toEqual(['local-llm.llama3.2-3b', 'local-llm.always-refuse']);
    const m = modelOf(localAdapter(), 'local-llm.llama3.2-3b');
    expect(m.capabilities).toMatchObject({ modality: 'chat', maxOutputTokens: 4_096, defaultMaxTokens: 512, temperature: null, supportsTopP: false, supportsSystem: false });
    expect(m.pricing).toEqual({ kind: 'per_token', inputPerMillionTokens: 0, outputPerMillionTokens: 0 });
  });

  it('calls POST <baseURL>/chat/completions with the upstream model name and the bearer key; records the reported cost', async () => {
    router.reset();
    const a = routerAdapter();
    const result = await a.generate(kitCall(modelOf(a, 'openrouter.llama-3.3-70b'), { prompt: 'Hello there', llm_params: { temperature: 0.7, max_tokens: 32 } }, AbortSignal.timeout(10_000)));
    const call = router.calls[0];
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/api/v1/chat/completions');
    expect(call?.headers).toMatchObject({ authorization: '[credential]', 'content-type': 'application/json' });
    expect(call?.credential).toBe(`Bearer ${KEY}`);
    expect(call?.body).toEqual({ model: 'meta-llama/llama-3.3-70b-instruct', max_tokens: 32, temperature: 0.7, messages: [{ role: 'user', content: 'Hello there' }] });
    expect(result.usage).toEqual({ inputTokens: 2, outputTokens: 3 });
    // usage.cost = 5 tokens x 3 micro-USD
    expect(result.reportedCostMicroUsd).toBe(15);
    expect(result.metadata).toMatchObject({ finishReason: 'stop', model: 'meta-llama/llama-3.3-70b-instruct' });
  });

  it('sends no Authorization header to a server declared without a key', async () => {
    local.reset();
    const a = localAdapter();
    const result = await a.generate(kitCall(modelOf(a, 'local-llm.llama3.2-3b'), { prompt: 'Hi' }, AbortSignal.timeout(10_000)));
    expect(local.calls[0]?.credential).toBeNull();
    expect(local.calls[0]?.headers['authorization']).toBeUndefined();
    expect(local.calls[0]?.body).toEqual({ model: 'llama3.2:3b', max_tokens: 512, messages: [{ role: 'user', content: 'Hi' }] });
    expect(result.reportedCostMicroUsd).toBeUndefined();
  });

  it('a declared key variable that is not set leaves the provider listed but unavailable, naming the variable', () => {
    const a = createOpenAICompatibleAdapter(routerConfig, {});
    expect(a.models).toHaveLength(1);
    expect(a.availability).toEqual({ available: false, reason: 'Provider openrouter is not configured: the operator must set OPENROUTER_API_KEY.', settings: ['OPENROUTER_API_KEY'] });
    expect(localAdapter().availability).toEqual({ available: true });
  });
});

const row = (param: string, value: unknown, check: (b: Record<string, unknown>) => boolean) => ({
  param: `llm_params.${param}`,
  request: { prompt: 'Hello', llm_params: { [param]: value } } as RunRequest,
  outcome: { mapped: check },
});
describeParameterTable('openai-compatible, full capabilities', {
  adapter: routerAdapter,
  upstream: router,
  model: 'openrouter.llama-3.3-70b',
  rows: [
    row('temperature', 1.1, (b) => b['temperature'] === 1.1),
    row('top_p', 0.3, (b) => b['top_p'] === 0.3),
    row('max_tokens', 17, (b) => b['max_tokens'] === 17),
    row('system', 'Be terse.', (b) => JSON.stringify(b['messages']).includes('"role":"system","content":"Be terse."')),
  ],
});
describeParameterTable('openai-compatible, declared without sampling or system', {
  adapter: localAdapter,
  upstream: local,
  model: 'local-llm.llama3.2-3b',
  rows: [
    { param: 'llm_params.temperature', request: { prompt: 'Hi', llm_params: { temperature: 0.5 } }, outcome: { refused: true } },
    { param: 'llm_params.top_p', request: { prompt: 'Hi', llm_params: { top_p: 0.5 } }, outcome: { refused: true } },
    { param: 'llm_params.system', request: { prompt: 'Hi', llm_params: { system: 'x' } }, outcome: { refused: true } },
    row('max_tokens', 9, (b) => b['max_tokens'] === 9),
  ],
});

describe('openai-compatible: prices from configuration, with the markup', () => {
  it('charges the declared per-million prices for the reported tokens', () => {
    const book = new PriceBook({ defaultBp: 10_000, providers: new Map([['openrouter', 13_000]]), models: new Map() });
    const m = modelOf(routerAdapter(), 'openrouter.llama-3.3-70b');
    const req = normalizeRunRequest(m, { prompt: 'z'.repeat(3_000), llm_params: { max_tokens: 2_000 } });
    // 2,000 x $0.13/M + 1,000 x $0.40/M = 660 micro-USD = 66,000 micro-credits; x1.3 = 85,800
    expect(book.charge(m, req, book.quote(m, req), { inputTokens: 2_000, outputTokens: 1_000 })).toEqual({ costMicro: 66_000, chargeMicro: 85_800 });
    const free = modelOf(localAdapter(), 'local-llm.llama3.2-3b');
    const r2 = normalizeRunRequest(free, { prompt: 'Hi' });
    expect(book.quote(free, r2)).toEqual({ costMicro: 0, chargeMicro: 0 });
  });
});

describeWorkerRetry('openai-compatible', {
  adapter: routerAdapter,
  upstream: router,
  model: 'openrouter.llama-3.3-70b',
  request: { prompt: 'Say hello', llm_params: { max_tokens: 16 } },
  rateLimited: openAIFaults.rateLimited(3),
  retryAfterSeconds: 3,
  credential: KEY,
  failures: [
    { name: 'a 402 out of credits', fault: { kind: 'status', status: 402, body: { error: { code: 402, message: 'Insufficient credits. Add more using https://openrouter.ai/credits' } } }, message: /out of quota or credit/ },
    { name: 'a rejected key', fault: openAIFaults.invalidApiKey(KEY), message: /misconfigured/ },
  ],
});

describe('openai-compatible: configuration errors name the field, never a value', () => {
  it.each([
    [[{ id: 'Bad Id', name: 'x', baseURL: 'http://h/v1', models: [] }], '0.id'],
    [[{ id: 'p', name: 'x', baseURL: 'not a url', models: [] }], '0.baseURL'],
    [[{ id: 'p', name: 'x', baseURL: 'http://h/v1', apiKeyEnv: 'sk-secret-value', models: [] }], '0.apiKeyEnv'],
    [[{ id: 'p', name: 'x', baseURL: 'http://h/v1', models: [] }], '0.models'],
    [[{ id: 'p', name: 'x', baseURL: 'http://h/v1', models: [{ id: 'm', name: 'M', capabilities: { maxOutputTokens: 10, defaultMaxTokens: 20 }, pricing: { inputPerMillionTokens: 1, outputPerMillionTokens: 1 } }] }], '0.models.0.capabilities.defaultMaxTokens'],
    [[{ id: 'p', name: 'x', baseURL: 'http://h/v1', models: [{ id: 'm', name: 'M', capabilities: { maxOutputTokens: 10 }, pricing: { inputPerMillionTokens: 0.5, outputPerMillionTokens: 1 } }] }], '0.models.0.pricing.inputPerMillionTokens'],
  ])('%j is refused at %s', (value, path) => {
    const r = compatibleProvidersSchema.safeParse(value);
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues.map((i) => i.path.join('.'))).toContain(path);
  });
});
