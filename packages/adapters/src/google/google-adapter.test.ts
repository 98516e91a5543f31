import { isUpstreamError, normalizeRunRequest, PriceBook, type ModelDescriptor, type RunRequest, type UpstreamError } from '@gengate/core/adapter';
import { describeAdapterConformance, describeOneRequestPerAttempt, describeParameterTable, describeWorkerRetry, googleFaults, kitCall, pngSize, startFakeGoogle } from '@gengate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createGoogleAdapter } from './google-adapter.js';

const KEY = 'AIzaTestKey-0123456789abcdefghij';
const fake = await startFakeGoogle();
afterAll(() => fake.close());
const adapter = () => createGoogleAdapter({ apiKey: KEY, baseURL: `${fake.url}/v1beta` });
const model = (id: string): ModelDescriptor => {
  const m = adapter().models.find((x) => x.id === id);
  if (!m) throw new Error(id);
  return m;
};
const generate = (id: string, request: RunRequest) => adapter().generate(kitCall(model(id), request, AbortSignal.timeout(10_000)));
async function failure(fault: Parameters<typeof fake.failNext>[0], id = 'google.gemini-3.5-flash'): Promise<UpstreamError> {
  fake.reset();
  fake.failNext(fault);
  const e: unknown = await generate(id, { prompt: 'hello' }).then(() => null, (err: unknown) => err);
  if (!isUpstreamError(e)) throw new Error(`expected an UpstreamError, got ${String(e)}`);
  expect(e.message).not.toContain(KEY);
  return e;
}

describeAdapterConformance('google', { adapter, upstream: fake, credential: KEY });
describeOneRequestPerAttempt('google', { adapter, upstream: fake });

describe('google: the exact upstream requests', () => {
  it('chat: POST /v1beta/models/gemini-3.5-flash:generateContent with x-goog-api-key, generationConfig, systemInstruction, thinking and safety settings', async () => {
    fake.reset();
    const result = await generate('google.gemini-3.5-flash', {
      prompt: 'Hello there',
      llm_params: { temperature: 0.5, top_p: 0.8, max_tokens: 64, system: 'Be brief.' },
      provider_params: { thinking_level: 'low', safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }] },
    });
    const call = fake.calls[0];
    expect(fake.calls).toHaveLength(1);
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/v1beta/models/gemini-3.5-flash:generateContent');
    expect(call?.headers).toMatchObject({ 'x-goog-api-key': '[credential]', 'content-type': 'application/json' });
    expect(JSON.stringify(call?.headers)).not.toContain(KEY);
    expect(call?.query).toEqual({});
    expect(call?.credential).toBe(KEY);
    expect(call?.body).toEqual({
      generationConfig: { maxOutputTokens: 64, temperature: 0.5, topP: 0.8, thinkingConfig: { thinkingLevel: 'low' } },
      contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
    });
    const file = result.files[0];
    expect(file?.kind === 'bytes' && new TextDecoder().decode(file.data)).toBe('Echo: Hello there');
    expect(result.usage).toEqual({ inputTokens: 4, outputTokens: 3 });
    expect(result.metadata).toEqual({ requestId: expect.any(String), finishReason: 'STOP', model: 'gemini-3.5-flash' });
  });

  it('image: generateContent with responseModalities IMAGE, the aspect ratio and the seed; n images are n calls; real PNGs of the 1K size', async () => {
    fake.reset();
    const result = await generate('google.gemini-3-pro-image', { prompt: 'a red fox', image_params: { aspect_ratio: '16:9', seed: 5, n: 2 } });
    expect(fake.calls).toHaveLength(2);
    for (const call of fake.calls) {
      expect(call.path).toBe('/v1beta/models/gemini-3-pro-image:generateContent');
      expect(call.headers['x-goog-api-key']).toBe('[credential]');
      expect(call.body).toEqual({
        generationConfig: { seed: 5, responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9' } },
        contents: [{ role: 'user', parts: [{ text: 'a red fox' }] }],
      });
    }
    expect(result.files).toHaveLength(2);
    for (const f of result.files) if (f.kind === 'bytes') expect(pngSize(f.data)).toEqual({ width: 1376, height: 768 });
    // usageMetadata summed over the two calls: the prompt's tokens billed on each, 1,120 image tokens each
    expect(result.usage).toEqual({ images: 2, inputTokens: 6, outputTokens: 2_240 });
  });
});

const chatRow = (param: string, value: unknown, check: (b: Record<string, unknown>) => boolean) => ({
  param: `llm_params.${param}`,
  request: { prompt: 'Hello', llm_params: { [param]: value } } as RunRequest,
  outcome: { mapped: check },
});
const config = (b: Record<string, unknown>) => (b['generationConfig'] ?? {}) as Record<string, unknown>;

describeParameterTable('google chat', {
  adapter,
  upstream: fake,
  model: 'google.gemini-3.5-flash-lite',
  rows: [
    chatRow('temperature', 1.3, (b) => config(b)['temperature'] === 1.3),
    chatRow('top_p', 0.4, (b) => config(b)['topP'] === 0.4),
    chatRow('max_tokens', 17, (b) => config(b)['maxOutputTokens'] === 17),
    chatRow('system', 'Answer in French.', (b) => JSON.stringify(b['systemInstruction']) === '{"parts":[{"text":"Answer in French."}]}'),
  ],
});

const imageConfig = (b: Record<string, unknown>) => (config(b)['imageConfig'] ?? {}) as Record<string, unknown>;
describeParameterTable('google image', {
  adapter,
  upstream: fake,
  model: 'google.gemini-3.1-flash-image',
  rows: [
    { param: 'image_params.aspect_ratio', request: { prompt: 'fox', image_params: { aspect_ratio: '9:16' } }, outcome: { mapped: (b) => imageConfig(b)['aspectRatio'] === '9:16' } },
    { param: 'image_params.width', request: { prompt: 'fox', image_params: { width: 1200 } }, outcome: { mapped: (b) => imageConfig(b)['aspectRatio'] === '4:3' } },
    { param: 'image_params.height', request: { prompt: 'fox', image_params: { height: 1152 } }, outcome: { mapped: (b) => imageConfig(b)['aspectRatio'] === '4:5' } },
    { param: 'image_params.seed', request: { prompt: 'fox', image_params: { seed: 99 } }, outcome: { mapped: (b) => config(b)['seed'] === 99 } },
    // n images: n generateContent calls (the last one is checked, it is a normal image call)
    { param: 'image_params.n', request: { prompt: 'fox', image_params: { n: 3 } }, outcome: { mapped: (_b, c) => c.path.endsWith(':generateContent') } },
    { param: 'image_params.negative_prompt', request: { prompt: 'fox', image_params: { negative_prompt: 'blur' } }, outcome: { refused: true } },
    { param: 'image_params.image_urls', request: { prompt: 'fox', image_params: { image_urls: ['https://example.com/a.png'] } }, outcome: { refused: true } },
  ],
});

describe('google: n images are n upstream calls', () => {
  it('sends exactly n generateContent calls for image_params.n', async () => {
    fake.reset();
    await generate('google.gemini-3.1-flash-image', { prompt: 'fox', image_params: { n: 3 } });
    expect(fake.calls).toHaveLength(3);
  });
});

describe('google: prices (upstream micro-USD x the markup)', () => {
  const book = new PriceBook({ defaultBp: 10_000, providers: new Map([['google', 15_000]]), models: new Map() });

  it.each([
    // 1,000 x $1.50/M + 2,000 x $9/M = 19,500 micro-USD; x1.5
    ['google.gemini-3.5-flash', { prompt: 'p'.repeat(4_000) }, { inputTokens: 1_000, outputTokens: 2_000 }, { costMicro: 1_950_000, chargeMicro: 2_925_000 }],
    // 100 x 0.30 + 50 x 2.50 = 155 micro-USD
    ['google.gemini-3.5-flash-lite', { prompt: 'q'.repeat(400) }, { inputTokens: 100, outputTokens: 50 }, { costMicro: 15_500, chargeMicro: 23_250 }],
  ] as const)('%s: %j with usage %j', (id, body, usage, expected) => {
    const m = model(id);
    const req = normalizeRunRequest(m, body);
    expect(book.charge(m, req, book.quote(m, req), usage)).toEqual(expected);
  });

  // 'fox' is 3 bytes: at most 3 text tokens, billed on each of the n calls ($2/M Pro, $0.50/M Flash).
  it.each([
    ['google.gemini-3-pro-image', { prompt: 'fox', image_params: { n: 4 } }, 4 * (134_000 + 3 * 2)],
    ['google.gemini-3.1-flash-image', { prompt: 'fox', image_params: { aspect_ratio: '16:9' } }, 67_000 + 3 * 0.5],
  ] as const)('%s: %j holds %d micro-USD', (id, body, microUsd) => {
    const m = model(id);
    const q = book.quote(m, normalizeRunRequest(m, body));
    expect(q).toEqual({ costMicro: microUsd * 100, chargeMicro: microUsd * 150 });
  });
});

describe('google: image prompts are charged as reported', () => {
  it('a Gemini image is charged its images plus the prompt tokens usageMetadata reports for every call', async () => {
    const book = new PriceBook();
    const m = model('google.gemini-3-pro-image');
    const body = { prompt: 'a red fox', image_params: { n: 2 } };
    const req = normalizeRunRequest(m, body);
    const held = book.quote(m, req);
    // held: 2 x $0.134 + 2 calls x 9 bytes x $2/M = 268,000 + 36 micro-USD
    expect(held.costMicro).toBe(26_803_600);
    fake.reset();
    const result = await generate('google.gemini-3-pro-image', body);
    // charged: 2 x $0.134 + 6 reported prompt tokens x $2/M = 268,000 + 12 micro-USD
    expect(book.charge(m, req, held, result.usage ?? {}).costMicro).toBe(26_801_200);
  });
});

describe('google: its own error bodies', () => {
  it('429 RESOURCE_EXHAUSTED is a rate limit, retried after the RetryInfo delay (no Retry-After header)', async () => {
    expect(await failure(googleFaults.resourceExhausted(9))).toMatchObject({ kind: 'rate_limited', isRetryable: true, retryAfterMs: 9_000, statusCode: 429 });
  });

  it('a bad key (400 API_KEY_INVALID) and 403 PERMISSION_DENIED are authentication', async () => {
    expect(await failure(googleFaults.invalidKey())).toMatchObject({ kind: 'authentication', isRetryable: false, statusCode: 400 });
    expect(await failure(googleFaults.permissionDenied())).toMatchObject({ kind: 'authentication', isRetryable: false });
  });

  it('FAILED_PRECONDITION (no billing) is quota; INVALID_ARGUMENT is invalid input; NOT_FOUND is not_found', async () => {
    expect(await failure(googleFaults.billingRequired())).toMatchObject({ kind: 'quota', isRetryable: false });
    expect(await failure(googleFaults.invalidArgument('* GenerationConfig.temperature: must be in [0, 2]'))).toMatchObject({ kind: 'invalid_input', isRetryable: false });
    expect(await failure(googleFaults.notFound('gemini-3.5-flash'))).toMatchObject({ kind: 'not_found', isRetryable: false });
  });

  it('500 INTERNAL and 503 UNAVAILABLE are retryable server errors; 504 DEADLINE_EXCEEDED a timeout', async () => {
    expect(await failure(googleFaults.internal())).toMatchObject({ kind: 'server', isRetryable: true });
    expect(await failure(googleFaults.unavailable())).toMatchObject({ kind: 'server', isRetryable: true, statusCode: 503 });
    expect(await failure(googleFaults.deadlineExceeded())).toMatchObject({ kind: 'timeout', isRetryable: true });
  });

  it('SAFETY blocks are content_policy: a chat answer (finishReason SAFETY) and an image (IMAGE_SAFETY)', async () => {
    fake.reset();
    await expect(generate('google.gemini-3.5-flash', { prompt: 'x [fake:refuse]' })).rejects.toMatchObject({ kind: 'content_policy', isRetryable: false });
    await expect(generate('google.gemini-3-pro-image', { prompt: 'x [fake:refuse]' })).rejects.toMatchObject({ kind: 'content_policy', isRetryable: false });
  });
});

describeWorkerRetry('google', {
  adapter,
  upstream: fake,
  model: 'google.gemini-3.5-flash-lite',
  request: { prompt: 'Say hello', llm_params: { max_tokens: 16 } },
  rateLimited: googleFaults.resourceExhausted(3),
  retryAfterSeconds: 3,
  credential: KEY,
  failures: [
    { name: 'an invalid key', fault: googleFaults.invalidKey(), message: /misconfigured/ },
    { name: 'a project without billing', fault: googleFaults.billingRequired(), message: /out of quota or credit/ },
    { name: 'an invalid argument', fault: googleFaults.invalidArgument('* contents: must not be empty'), message: /refused the request as invalid/ },
  ],
});

describe('google: configuration', () => {
  it('without a key keeps its models and names GOOGLE_GENERATIVE_AI_API_KEY', () => {
    const a = createGoogleAdapter({});
    expect(a.models).toHaveLength(4);
    expect(a.availability).toEqual({
      available: false,
      reason: 'Provider google is not configured: the operator must set GOOGLE_GENERATIVE_AI_API_KEY.',
      settings: ['GOOGLE_GENERATIVE_AI_API_KEY'],
    });
  });
});
