import { isUpstreamError, normalizeRunRequest, PriceBook, type ModelDescriptor, type RunRequest, type UpstreamError } from '@gengate/core/adapter';
import { describeAdapterConformance, describeOneRequestPerAttempt, describeParameterTable, describeWorkerRetry, kitCall, openAIFaults, pngSize, startFakeOpenAI } from '@gengate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenAIAdapter } from './openai-adapter.js';

const KEY = 'sk-test-openai-0123456789abcdef';
const fake = await startFakeOpenAI();
afterAll(() => fake.close());
const adapter = () => createOpenAIAdapter({ apiKey: KEY, baseURL: `${fake.url}/v1` });
const model = (id: string): ModelDescriptor => {
  const m = adapter().models.find((x) => x.id === id);
  if (!m) throw new Error(id);
  return m;
};
const generate = (id: string, request: RunRequest) => adapter().generate(kitCall(model(id), request, AbortSignal.timeout(10_000)));
async function failure(fault: Parameters<typeof fake.failNext>[0], id = 'openai.gpt-4.1'): Promise<UpstreamError> {
  fake.reset();
  fake.failNext(fault);
  const e: unknown = await generate(id, { prompt: 'hello' }).then(() => null, (err: unknown) => err);
  if (!isUpstreamError(e)) throw new Error(`expected an UpstreamError, got ${String(e)}`);
  expect(e.message).not.toContain(KEY);
  return e;
}

describeAdapterConformance('openai', { adapter, upstream: fake, credential: KEY });
describeOneRequestPerAttempt('openai', { adapter, upstream: fake });

describe('openai: the exact upstream requests', () => {
  it('chat: POST /v1/chat/completions with the bearer key, the system message and every mapped parameter', async () => {
    fake.reset();
    const result = await generate('openai.gpt-4.1', {
      prompt: 'Hello there',
      llm_params: { temperature: 0.5, top_p: 0.9, max_tokens: 64, system: 'Be brief.' },
      provider_params: { frequency_penalty: 0.5, presence_penalty: -0.5, stop: ['END'], seed: 7 },
    });
    expect(fake.calls).toHaveLength(1);
    const call = fake.calls[0];
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/v1/chat/completions');
    expect(call?.headers).toMatchObject({ authorization: '[credential]', 'content-type': 'application/json' });
    expect(JSON.stringify(call?.headers)).not.toContain(KEY);
    expect(call?.credential).toBe(`Bearer ${KEY}`);
    expect(call?.body).toEqual({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
      max_tokens: 64,
      temperature: 0.5,
      top_p: 0.9,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
      stop: ['END'],
      seed: 7,
    });
    const file = result.files[0];
    expect(file?.kind === 'bytes' && new TextDecoder().decode(file.data)).toBe('Echo: Hello there');
    expect(result.usage).toEqual({ inputTokens: 4, outputTokens: 3 });
    expect(result.metadata).toEqual({ requestId: expect.stringMatching(/^req_/), finishReason: 'stop', model: 'gpt-4.1' });
    expect(result.warnings).toEqual([]);
  });

  it("language model: Chat Completions, except for a Responses call, which goes to OpenAI's Responses API (reasoning items survive)", async () => {
    expect(adapter().languageModel('openai.gpt-4.1').provider).toBe('openai.chat');
    const responses = adapter().languageModel('openai.gpt-4.1', { wire: 'responses' });
    expect(responses.provider).toBe('openai.responses');
    fake.reset();
    const r = await responses.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      providerOptions: { openai: { store: false, include: ['reasoning.encrypted_content'] } },
    });
    expect(fake.calls[0]?.path).toBe('/v1/responses');
    expect(fake.calls[0]?.body).toMatchObject({ model: 'gpt-4.1', store: false, include: ['reasoning.encrypted_content'] });
    // The fake reasons when the encrypted reasoning is included: the SDK's reasoning part names OpenAI's item.
    expect(r.content[0]).toMatchObject({ type: 'reasoning', providerMetadata: { openai: { itemId: expect.stringMatching(/^rs_/), reasoningEncryptedContent: 'enc_0' } } });
  });

  it('image: POST /v1/images/generations with the size, n and quality; real PNGs of that size come back', async () => {
    fake.reset();
    const result = await generate('openai.gpt-image-2', {
      prompt: 'a red fox',
      image_params: { aspect_ratio: '3:2', n: 2 },
      provider_params: { quality: 'high', background: 'opaque', output_format: 'png' },
    });
    const call = fake.calls[0];
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/v1/images/generations');
    expect(call?.headers).toMatchObject({ authorization: '[credential]', 'content-type': 'application/json' });
    expect(call?.credential).toBe(`Bearer ${KEY}`);
    expect(call?.body).toEqual({ model: 'gpt-image-2', prompt: 'a red fox', n: 2, size: '1536x1024', quality: 'high', background: 'opaque', output_format: 'png' });
    expect(result.files).toHaveLength(2);
    for (const f of result.files) {
      expect(f.kind === 'bytes' && f.mediaType).toBe('image/png');
      if (f.kind === 'bytes') expect(pngSize(f.data)).toEqual({ width: 1536, height: 1024 });
    }
    // the Images API's usage, as OpenAI documents it: 3 text tokens for 'a red fox', 5,500 output tokens per high 1536x1024 image
    expect(result.usage).toEqual({ images: 2, inputTokens: 3, outputTokens: 11_000, inputTextTokens: 3, inputImageTokens: 0 });
    expect(result.metadata?.requestId).toMatch(/^req_/);
  });

  it('image: the default quality (medium) is sent, so the held price is the price of what is made', async () => {
    fake.reset();
    await generate('openai.gpt-image-1.5', { prompt: 'a lighthouse', image_params: { width: 1024, height: 1536 } });
    expect(fake.calls[0]?.body).toEqual({ model: 'gpt-image-1.5', prompt: 'a lighthouse', n: 1, size: '1024x1536', quality: 'medium' });
  });
});

const chatRow = (param: string, value: unknown, check: (b: Record<string, unknown>) => boolean) => ({
  param: `llm_params.${param}`,
  request: { prompt: 'Hello', llm_params: { [param]: value } } as RunRequest,
  outcome: { mapped: check },
});

describeParameterTable('openai chat', {
  adapter,
  upstream: fake,
  model: 'openai.gpt-4.1',
  rows: [
    chatRow('temperature', 0.3, (b) => b['temperature'] === 0.3),
    chatRow('top_p', 0.4, (b) => b['top_p'] === 0.4),
    chatRow('max_tokens', 17, (b) => b['max_tokens'] === 17),
    chatRow('system', 'Answer in French.', (b) => JSON.stringify(b['messages']).includes('"role":"system","content":"Answer in French."')),
  ],
});

describeParameterTable('openai image', {
  adapter,
  upstream: fake,
  model: 'openai.gpt-image-2',
  rows: [
    { param: 'image_params.aspect_ratio', request: { prompt: 'fox', image_params: { aspect_ratio: '2:3' } }, outcome: { mapped: (b) => b['size'] === '1024x1536' } },
    { param: 'image_params.width', request: { prompt: 'fox', image_params: { width: 1536 } }, outcome: { mapped: (b) => b['size'] === '1536x1024' } },
    { param: 'image_params.height', request: { prompt: 'fox', image_params: { height: 1536 } }, outcome: { mapped: (b) => b['size'] === '1024x1536' } },
    { param: 'image_params.n', request: { prompt: 'fox', image_params: { n: 3 } }, outcome: { mapped: (b) => b['n'] === 3 } },
    { param: 'image_params.negative_prompt', request: { prompt: 'fox', image_params: { negative_prompt: 'blur' } }, outcome: { refused: true } },
    { param: 'image_params.seed', request: { prompt: 'fox', image_params: { seed: 1 } }, outcome: { refused: true } },
    { param: 'image_params.image_urls', request: { prompt: 'fox', image_params: { image_urls: ['https://example.com/a.png'] } }, outcome: { refused: true } },
  ],
});

describe('openai: prices (upstream micro-USD, the user pays them x the markup)', () => {
  const book = new PriceBook({ defaultBp: 10_000, providers: new Map([['openai', 12_500]]), models: new Map() });

  it('charges chat by the reported tokens, never above the hold', async () => {
    const m = model('openai.gpt-4.1');
    const req = normalizeRunRequest(m, { prompt: 'Hello there', llm_params: { max_tokens: 64 } });
    const held = book.quote(m, req);
    // worst case: 11 prompt bytes x $2/M + 64 x $8/M = 22 + 512 = 534 micro-USD = 53,400 micro-credits; x1.25 = 66,750
    expect(held).toEqual({ costMicro: 53_400, chargeMicro: 66_750 });
    const result = await generate('openai.gpt-4.1', { prompt: 'Hello there', llm_params: { max_tokens: 64 } });
    expect(result.usage).toEqual({ inputTokens: 2, outputTokens: 3 });
    // 2 input x $2/M + 3 output x $8/M = 28 micro-USD = 2,800 micro-credits; x1.25 = 3,500
    expect(book.charge(m, req, held, result.usage ?? {})).toEqual({ costMicro: 2_800, chargeMicro: 3_500 });
  });

  it.each([
    // reported usage above the worst case is capped at the hold: 7 bytes x 0.15 + 10 x 0.6 = 7.05 micro-USD
    ['openai.gpt-4o-mini', { prompt: 'a b c d', llm_params: { max_tokens: 10 } }, { inputTokens: 1_000, outputTokens: 500 }, { costMicro: 705, chargeMicro: 882 }],
    ['openai.gpt-4o', { prompt: 'x'.repeat(2_000), llm_params: { max_tokens: 1_000 } }, { inputTokens: 500, outputTokens: 250 }, { costMicro: 375_000, chargeMicro: 468_750 }],
    ['openai.gpt-4.1-mini', { prompt: 'x', llm_params: { max_tokens: 32_768 } }, { inputTokens: 10, outputTokens: 20_000 }, { costMicro: 3_200_400, chargeMicro: 4_000_500 }],
  ] as const)('%s: %j with usage %j', (id, body, usage, expected) => {
    const m = model(id);
    const req = normalizeRunRequest(m, body);
    expect(book.charge(m, req, book.quote(m, req), usage)).toEqual(expected);
  });

  // 'fox' is 3 bytes: at most 3 text tokens x $5/M = 15 micro-USD held besides the images, once per request.
  it.each([
    ['openai.gpt-image-2', { prompt: 'fox', provider_params: { quality: 'high' }, image_params: { n: 2 } }, 2 * 211_000 + 15],
    ['openai.gpt-image-2', { prompt: 'fox', provider_params: { quality: 'low' }, image_params: { aspect_ratio: '3:2' } }, 5_000 + 15],
    ['openai.gpt-image-2', { prompt: 'fox', provider_params: { quality: 'high' }, image_params: { aspect_ratio: '2:3' } }, 165_000 + 15],
    ['openai.gpt-image-2', { prompt: 'fox' }, 53_000 + 15],
    ['openai.gpt-image-1.5', { prompt: 'fox', provider_params: { quality: 'high' }, image_params: { aspect_ratio: '2:3' } }, 200_000 + 15],
    ['openai.gpt-image-1.5', { prompt: 'fox', provider_params: { quality: 'auto' }, image_params: { aspect_ratio: '3:2', n: 3 } }, 3 * 199_000 + 15],
    ['openai.gpt-image-1.5', { prompt: 'fox', provider_params: { quality: 'low' } }, 9_000 + 15],
  ] as const)('%s: %j holds %d micro-USD upstream', (id, body, microUsd) => {
    const m = model(id);
    const q = book.quote(m, normalizeRunRequest(m, body));
    expect(q.costMicro).toBe(microUsd * 100);
    expect(q.chargeMicro).toBe(microUsd * 125);
  });

  it('GPT Image: a 32,000-character prompt is held with its text tokens and charged the usage OpenAI reports', async () => {
    const m = model('openai.gpt-image-2');
    const body = { prompt: 'a'.repeat(32_000), provider_params: { quality: 'low' } };
    const req = normalizeRunRequest(m, body);
    const held = book.quote(m, req);
    // $0.006 for the image + 32,000 bytes x $5/M = 6,000 + 160,000 = 166,000 micro-USD (was 6,000: the prompt left out)
    expect(held).toEqual({ costMicro: 16_600_000, chargeMicro: 20_750_000 });
    fake.reset();
    const result = await generate('openai.gpt-image-2', body);
    // the Images API's usage (fake: 8,000 text tokens, 200 output tokens for a low 1024x1024 image)
    expect(result.usage).toEqual({ images: 1, inputTokens: 8_000, outputTokens: 200, inputTextTokens: 8_000, inputImageTokens: 0 });
    // charged as billed: 8,000 x $5/M + 200 x $30/M = 40,000 + 6,000 = 46,000 micro-USD; x1.25
    expect(book.charge(m, req, held, result.usage ?? {})).toEqual({ costMicro: 4_600_000, chargeMicro: 5_750_000 });
  });

  it('GPT Image 2: a non-square image is charged by its output tokens, not at the square price', async () => {
    const m = model('openai.gpt-image-2');
    const body = { prompt: 'fox', provider_params: { quality: 'high' }, image_params: { aspect_ratio: '3:2', n: 2 } };
    const req = normalizeRunRequest(m, body);
    fake.reset();
    const result = await generate('openai.gpt-image-2', body);
    // one call makes every image, so the prompt is billed once (what the hold assumes: promptBilled per_request)
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]?.body).toMatchObject({ size: '1536x1024', n: 2 });
    // 1 text token x $5/M + 2 x 5,500 output tokens x $30/M = 5 + 330,000 micro-USD (the square price would be 422,000)
    expect(book.charge(m, req, book.quote(m, req), result.usage ?? {}).costMicro).toBe(33_000_500);
  });

  it('GPT Image: the largest n (10) is still one call, so the prompt is billed once', async () => {
    fake.reset();
    await generate('openai.gpt-image-1.5', { prompt: 'fox', provider_params: { quality: 'low' }, image_params: { n: 10 } });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]?.body).toMatchObject({ n: 10 });
  });

  it('charges images produced, not images asked for, when the upstream reports no tokens (the prompt as held)', () => {
    const m = model('openai.gpt-image-2');
    const req = normalizeRunRequest(m, { prompt: 'fox', image_params: { n: 4 } });
    expect(book.charge(m, req, book.quote(m, req), { images: 3 }).costMicro).toBe((3 * 53_000 + 15) * 100);
  });
});

describe('openai: its own error bodies', () => {
  it('429 insufficient_quota is an empty account: quota, not retried', async () => {
    const e = await failure(openAIFaults.insufficientQuota());
    expect(e).toMatchObject({ kind: 'quota', isRetryable: false, statusCode: 429 });
  });

  it('429 rate_limit_exceeded with Retry-After: rate_limited, retried after that delay', async () => {
    const e = await failure(openAIFaults.rateLimited(12));
    expect(e).toMatchObject({ kind: 'rate_limited', isRetryable: true, retryAfterMs: 12_000, requestId: expect.stringMatching(/^req_/) });
  });

  it('an image prompt blocked by moderation is content_policy; a chat content_policy_violation too', async () => {
    fake.reset();
    const img: unknown = await generate('openai.gpt-image-2', { prompt: 'something [fake:refuse]' }).catch((x: unknown) => x);
    expect(img).toMatchObject({ kind: 'content_policy', isRetryable: false });
    expect(await failure(openAIFaults.contentPolicy())).toMatchObject({ kind: 'content_policy' });
  });

  it('401 invalid_api_key is authentication, and the echoed key is removed from the message', async () => {
    const e = await failure(openAIFaults.invalidApiKey(KEY));
    expect(e).toMatchObject({ kind: 'authentication', isRetryable: false });
    expect(e.message).toContain('[redacted]');
  });

  it('400 invalid_value is invalid_input; 500 and 503 are retryable server errors; a reset connection is a network error', async () => {
    expect(await failure(openAIFaults.invalidRequest('size', "Invalid value: '999x999'."))).toMatchObject({ kind: 'invalid_input', isRetryable: false });
    expect(await failure(openAIFaults.serverError())).toMatchObject({ kind: 'server', isRetryable: true });
    expect(await failure(openAIFaults.overloaded())).toMatchObject({ kind: 'server', isRetryable: true, statusCode: 503 });
    expect(await failure({ kind: 'reset' })).toMatchObject({ kind: 'network', isRetryable: true });
  });
});

describeWorkerRetry('openai', {
  adapter,
  upstream: fake,
  model: 'openai.gpt-4o-mini',
  request: { prompt: 'Say hello', llm_params: { max_tokens: 16 } },
  rateLimited: openAIFaults.rateLimited(3),
  retryAfterSeconds: 3,
  credential: KEY,
  failures: [
    { name: 'insufficient_quota', fault: openAIFaults.insufficientQuota(), message: /out of quota or credit/ },
    { name: 'a content-policy refusal', fault: openAIFaults.contentPolicy(), message: /content policy/ },
    { name: 'a rejected key', fault: openAIFaults.invalidApiKey(KEY), message: /misconfigured/ },
  ],
});

describe('openai: configuration', () => {
  it('without a key keeps its models and says which setting is missing', () => {
    const a = createOpenAIAdapter({});
    expect(a.models.length).toBeGreaterThanOrEqual(6);
    expect(a.availability).toEqual({
      available: false,
      reason: 'Provider openai is not configured: the operator must set OPENAI_API_KEY.',
      settings: ['OPENAI_API_KEY'],
    });
  });

  it('refuses to call upstream when unconfigured', async () => {
    fake.reset();
    const a = createOpenAIAdapter({ baseURL: `${fake.url}/v1` });
    const m = a.models[0];
    if (!m) throw new Error('no model');
    await expect(a.generate(kitCall(m, { prompt: 'x' }, AbortSignal.timeout(5_000)))).rejects.toMatchObject({ kind: 'authentication' });
    expect(fake.calls).toHaveLength(0);
  });
});
