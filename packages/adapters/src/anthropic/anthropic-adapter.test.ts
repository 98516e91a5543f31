import { isUpstreamError, normalizeRunRequest, PriceBook, type ModelDescriptor, type RunRequest, type UpstreamError } from '@gengate/core/adapter';
import { anthropicFaults, describeAdapterConformance, describeOneRequestPerAttempt, describeParameterTable, describeWorkerRetry, kitCall, startFakeAnthropic } from '@gengate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createAnthropicAdapter } from './anthropic-adapter.js';

const KEY = 'sk-ant-test-0123456789abcdef';
const fake = await startFakeAnthropic();
afterAll(() => fake.close());
const adapter = () => createAnthropicAdapter({ apiKey: KEY, baseURL: `${fake.url}/v1` });
const model = (id: string): ModelDescriptor => {
  const m = adapter().models.find((x) => x.id === id);
  if (!m) throw new Error(id);
  return m;
};
const generate = (id: string, request: RunRequest) => adapter().generate(kitCall(model(id), request, AbortSignal.timeout(10_000)));
async function failure(fault: Parameters<typeof fake.failNext>[0]): Promise<UpstreamError> {
  fake.reset();
  fake.failNext(fault);
  const e: unknown = await generate('anthropic.claude-sonnet-5-5', { prompt: 'hello' }).then(() => null, (err: unknown) => err);
  if (!isUpstreamError(e)) throw new Error(`expected an UpstreamError, got ${String(e)}`);
  expect(e.message).not.toContain(KEY);
  return e;
}

describeAdapterConformance('anthropic', { adapter, upstream: fake, credential: KEY });
describeOneRequestPerAttempt('anthropic', { adapter, upstream: fake });

describe('anthropic: the exact upstream requests', () => {
  it('POST /v1/messages with x-api-key, anthropic-version, the system prompt, max_tokens and temperature', async () => {
    fake.reset();
    const result = await generate('anthropic.claude-haiku-4-5', { prompt: 'Hello there', llm_params: { temperature: 0.5, max_tokens: 64, system: 'Be brief.' } });
    const call = fake.calls[0];
    expect(fake.calls).toHaveLength(1);
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/v1/messages');
    expect(call?.headers).toMatchObject({ 'x-api-key': '[credential]', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
    expect(JSON.stringify(call?.headers)).not.toContain(KEY);
    expect(call?.credential).toBe(KEY);
    expect(call?.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 64,
      temperature: 0.5,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
    });
    const file = result.files[0];
    expect(file?.kind === 'bytes' && new TextDecoder().decode(file.data)).toBe('Echo: Hello there');
    expect(result.usage).toEqual({ inputTokens: 4, outputTokens: 3 });
    expect(result.metadata).toEqual({ requestId: expect.stringMatching(/^req_/), finishReason: 'end_turn', model: 'claude-haiku-4-5' });
  });

  it('Claude 5.x: effort goes to output_config; no sampling parameters are ever sent', async () => {
    fake.reset();
    await generate('anthropic.claude-sonnet-5-5', { prompt: 'Hello', llm_params: { max_tokens: 500 }, provider_params: { effort: 'low' } });
    expect(fake.calls[0]?.body).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: 500,
      output_config: { effort: 'low' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    });
  });

  it('thinking budget: sent as thinking.budget_tokens inside the held max_tokens; temperature is then reported as not applied', async () => {
    fake.reset();
    const result = await generate('anthropic.claude-haiku-4-5', { prompt: 'Hello', llm_params: { max_tokens: 4_096, temperature: 0.2 }, provider_params: { thinking_budget: 2_000 } });
    expect(fake.calls[0]?.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 4_096,
      thinking: { type: 'enabled', budget_tokens: 2_000 },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    });
    expect(result.warnings).toEqual([{ param: 'llm_params.temperature', message: 'temperature is not supported when thinking is enabled' }]);
  });

  it('a thinking budget not below max_tokens fails before any upstream call', async () => {
    fake.reset();
    await expect(generate('anthropic.claude-haiku-4-5', { prompt: 'Hello', llm_params: { max_tokens: 2_000 }, provider_params: { thinking_budget: 2_000 } })).rejects.toMatchObject({
      kind: 'invalid_input',
    });
    expect(fake.calls).toHaveLength(0);
  });
});

const row = (param: string, value: unknown, check: (b: Record<string, unknown>) => boolean) => ({
  param: `llm_params.${param}`,
  request: { prompt: 'Hello', llm_params: { [param]: value } } as RunRequest,
  outcome: { mapped: check },
});
const refused = (param: string, value: unknown) => ({
  param: `llm_params.${param}`,
  request: { prompt: 'Hello', llm_params: { [param]: value } } as RunRequest,
  outcome: { refused: true as const },
});

describeParameterTable('anthropic Claude Haiku 4.5', {
  adapter,
  upstream: fake,
  model: 'anthropic.claude-haiku-4-5',
  rows: [
    row('temperature', 0.3, (b) => b['temperature'] === 0.3),
    row('top_p', 0.4, (b) => b['top_p'] === 0.4),
    row('max_tokens', 17, (b) => b['max_tokens'] === 17),
    row('system', 'Answer in French.', (b) => JSON.stringify(b['system']) === '[{"type":"text","text":"Answer in French."}]'),
    // temperature and top_p together: this model answers 400, so gengate refuses the pair before the hold
    { param: 'llm_params.top_p', request: { prompt: 'Hello', llm_params: { temperature: 0.3, top_p: 0.4 } }, outcome: { refused: true } },
  ],
});

describeParameterTable('anthropic Claude Sonnet 5.5', {
  adapter,
  upstream: fake,
  model: 'anthropic.claude-sonnet-5-5',
  rows: [
    refused('temperature', 0.3),
    refused('top_p', 0.4),
    row('max_tokens', 17, (b) => b['max_tokens'] === 17),
    row('system', 'Answer in French.', (b) => JSON.stringify(b['system']) === '[{"type":"text","text":"Answer in French."}]'),
  ],
});

describe('anthropic: prices (upstream micro-USD x the markup)', () => {
  const book = new PriceBook({ defaultBp: 11_000, providers: new Map(), models: new Map([['anthropic.claude-haiku-5-5', 20_000]]) });

  it.each([
    // 2 in x $2/M + 3 out x $10/M = 34 micro-USD; x1.1
    ['anthropic.claude-sonnet-5-5', { prompt: 'Hello there' }, { inputTokens: 2, outputTokens: 3 }, { costMicro: 3_400, chargeMicro: 3_740 }],
    // 10,000 x 0.1 + 2,000 x 0.5 = 2,000 micro-USD; the model's own markup x2
    ['anthropic.claude-haiku-5-5', { prompt: 'x'.repeat(20_000), llm_params: { max_tokens: 4_000 } }, { inputTokens: 10_000, outputTokens: 2_000 }, { costMicro: 200_000, chargeMicro: 400_000 }],
    // 1,000 x 1 + 4,096 x 5 = 21,480 micro-USD (thinking counted as output), x1.1
    ['anthropic.claude-haiku-4-5', { prompt: 'y'.repeat(5_000) }, { inputTokens: 1_000, outputTokens: 4_096 }, { costMicro: 2_148_000, chargeMicro: 2_362_800 }],
  ] as const)('%s: %j with usage %j', (id, body, usage, expected) => {
    const m = model(id);
    const req = normalizeRunRequest(m, body);
    expect(book.charge(m, req, book.quote(m, req), usage)).toEqual(expected);
  });

  it('Claude Haiku 5.5: a request above 100,000 prompt tokens is held and charged whole at $0.50 / $2.50', () => {
    const m = model('anthropic.claude-haiku-5-5');
    const req = normalizeRunRequest(m, { prompt: '€'.repeat(32_000), llm_params: { system: '€'.repeat(32_000), max_tokens: 4_000 } });
    const held = book.quote(m, req);
    // held: 192,000 bytes (> 100,000) x 0.5 + 4,000 x 2.5 = 106,000 micro-USD; the model's markup x2
    expect(held).toEqual({ costMicro: 10_600_000, chargeMicro: 21_200_000 });
    // reported 120,000 in: 120,000 x 0.5 + 2,000 x 2.5 = 65,000 micro-USD
    expect(book.charge(m, req, held, { inputTokens: 120_000, outputTokens: 2_000 })).toEqual({ costMicro: 6_500_000, chargeMicro: 13_000_000 });
    // reported 90,000 in: the base prices, 90,000 x 0.1 + 2,000 x 0.5 = 10,000 micro-USD
    expect(book.charge(m, req, held, { inputTokens: 90_000, outputTokens: 2_000 })).toEqual({ costMicro: 1_000_000, chargeMicro: 2_000_000 });
  });
});

describe('anthropic: its own error bodies', () => {
  it('529 overloaded_error and 500 api_error are retryable server errors', async () => {
    expect(await failure(anthropicFaults.overloaded())).toMatchObject({ kind: 'server', isRetryable: true, statusCode: 529, requestId: expect.stringMatching(/^req_/) });
    expect(await failure(anthropicFaults.apiError())).toMatchObject({ kind: 'server', isRetryable: true });
  });

  it('429 rate_limit_error with retry-after is rate_limited with that delay', async () => {
    expect(await failure(anthropicFaults.rateLimited(20))).toMatchObject({ kind: 'rate_limited', isRetryable: true, retryAfterMs: 20_000 });
  });

  it('an empty credit balance is quota; a bad or unauthorized key is authentication', async () => {
    expect(await failure(anthropicFaults.creditBalanceTooLow())).toMatchObject({ kind: 'quota', isRetryable: false });
    expect(await failure(anthropicFaults.invalidKey())).toMatchObject({ kind: 'authentication', isRetryable: false });
    expect(await failure(anthropicFaults.permission())).toMatchObject({ kind: 'authentication', isRetryable: false });
  });

  it('invalid_request_error, request_too_large and not_found_error are not retried', async () => {
    expect(await failure(anthropicFaults.invalidRequest('messages: text content blocks must be non-empty'))).toMatchObject({ kind: 'invalid_input', isRetryable: false });
    expect(await failure(anthropicFaults.tooLarge())).toMatchObject({ kind: 'invalid_input', isRetryable: false });
    expect(await failure(anthropicFaults.notFound('claude-sonnet-5-5'))).toMatchObject({ kind: 'not_found', isRetryable: false });
  });

  it('a refusal (stop_reason "refusal", no text) is content_policy', async () => {
    fake.reset();
    await expect(generate('anthropic.claude-haiku-5-5', { prompt: 'Please [fake:refuse]' })).rejects.toMatchObject({ kind: 'content_policy', isRetryable: false });
  });
});

describeWorkerRetry('anthropic', {
  adapter,
  upstream: fake,
  model: 'anthropic.claude-haiku-5-5',
  request: { prompt: 'Say hello', llm_params: { max_tokens: 16 } },
  rateLimited: anthropicFaults.rateLimited(3),
  retryAfterSeconds: 3,
  credential: KEY,
  failures: [
    { name: 'a credit balance too low', fault: anthropicFaults.creditBalanceTooLow(), message: /out of quota or credit/ },
    { name: 'an invalid key', fault: anthropicFaults.invalidKey(), message: /misconfigured/ },
    { name: 'an invalid request', fault: anthropicFaults.invalidRequest('max_tokens: must be positive'), message: /refused the request as invalid/ },
  ],
});

describe('anthropic: configuration', () => {
  it('without a key keeps its models and names ANTHROPIC_API_KEY', () => {
    const a = createAnthropicAdapter({});
    expect(a.models.map((m) => m.id)).toEqual(['anthropic.claude-sonnet-5-5', 'anthropic.claude-haiku-5-5', 'anthropic.claude-haiku-4-5']);
    expect(a.availability).toEqual({ available: false, reason: 'Provider anthropic is not configured: the operator must set ANTHROPIC_API_KEY.', settings: ['ANTHROPIC_API_KEY'] });
  });
});
