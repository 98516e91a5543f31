/*
 * A fake of the OpenAI API, following its documented shapes:
 * - Chat Completions: https://platform.openai.com/docs/api-reference/chat/create (request `model`,
 *   `messages`, `max_tokens`/`max_completion_tokens`, `temperature`, `top_p`, `stop`, `seed`, penalties;
 *   response `chat.completion` with `choices[].message`, `finish_reason` and `usage`).
 * - Streaming (`stream: true`): https://platform.openai.com/docs/api-reference/chat-streaming (server-sent
 *   `data:` events of `chat.completion.chunk` objects: the role first, content deltas, the `finish_reason`,
 *   with `stream_options.include_usage` a last chunk with empty `choices` and the `usage`, then `data: [DONE]`).
 * - Images: https://platform.openai.com/docs/api-reference/images/create (request `model`, `prompt`, `n`,
 *   `size`, `quality`, `background`, `output_format`; response `data[].b64_json` and `usage`: `input_tokens`,
 *   `input_tokens_details.text_tokens` / `image_tokens`, `output_tokens`, `total_tokens`, as documented at
 *   https://platform.openai.com/docs/api-reference/images/object). The counts: see imageUsage below.
 * - Responses (`POST /v1/responses`, reasoning items included): see fake-openai-responses.ts.
 * - Errors: https://platform.openai.com/docs/guides/error-codes (body `{ error: { message, type, param, code } }`,
 *   the `x-request-id` header on every answer, `retry-after` on 429).
 * Servers that speak the same Chat Completions API (OpenRouter, Groq, vLLM, Ollama...) are faked by the
 * same routes; `reportCost` adds OpenRouter's `usage.cost` (https://openrouter.ai/docs/api-reference/overview).
 */
import { FakeUpstream, type FakeFault, type FakeReply, type FakeRoute, type RecordedCall } from '../fake-upstream.js';
import { countTokens, echoReply, FAKE_REFUSE_MARKER, fakeId, isRecord } from '../fake-text.js';
import { colourOf, solidPng } from '../png.js';
import { createResponse } from './fake-openai-responses.js';
import { toolOrStructured } from './fake-openai-tools.js';

export interface FakeOpenAIOptions {
  /** Path prefix of the API (default `/v1`, as at https://api.openai.com/v1). */
  readonly prefix?: string;
  /** Adds OpenRouter's `usage.cost` (USD) to chat answers: this many micro-USD per token. */
  readonly reportCost?: { readonly microUsdPerToken: number };
  /** Models whose every call is refused under the content policy (a deterministically failing model). */
  readonly refusingModels?: readonly string[];
}

/** The sizes of the GPT Image models. */
const IMAGE_SIZES: readonly string[] = ['1024x1024', '1536x1024', '1024x1536', 'auto'];

type ImageQuality = 'low' | 'medium' | 'high';
/**
 * Output tokens per image by quality, for [square, non-square]. GPT Image 1 / 1.5: the token counts of
 * OpenAI's image generation guide (https://platform.openai.com/docs/guides/image-generation, "Cost and
 * latency"). gpt-image-2 publishes per-image examples instead ($0.006 / $0.053 / $0.211 square, $0.005 /
 * $0.041 / $0.165 non-square): the counts below are those amounts at its $30 per 1M output tokens, rounded down.
 */
const OUTPUT_TOKENS: Readonly<Record<string, Readonly<Record<ImageQuality, readonly [number, number]>>>> = {
  'gpt-image-2': { low: [200, 166], medium: [1_766, 1_366], high: [7_033, 5_500] },
  default: { low: [272, 408], medium: [1_056, 1_584], high: [4_160, 6_240] },
};

/**
 * The Images API's `usage` for a generation: the prompt's text tokens (about four UTF-8 bytes a token, as
 * OpenAI's tokenizer guide estimates for English; never more than the byte count gengate holds), no image
 * input (generations take none), and each image's output tokens.
 */
function imageUsage(model: string, prompt: string, quality: unknown, size: string, n: number): Record<string, unknown> {
  const textTokens = Math.ceil(new TextEncoder().encode(prompt).length / 4);
  const q: ImageQuality = quality === 'low' || quality === 'medium' ? quality : 'high'; // `auto` is billed as the model chooses: high at most
  const table = OUTPUT_TOKENS[model] ?? OUTPUT_TOKENS['default'];
  const perImage = table?.[q][size === '1024x1024' || size === 'auto' ? 0 : 1] ?? 0;
  const output = perImage * n;
  return { input_tokens: textTokens, input_tokens_details: { image_tokens: 0, text_tokens: textTokens }, output_tokens: output, total_tokens: textTokens + output };
}

let sequence = 0;
const requestHeaders = () => ({ 'x-request-id': `req_${(++sequence).toString(16).padStart(8, '0')}`, 'openai-processing-ms': '42' });

export function openAIError(status: number, message: string, type: string, code: string | null, param: string | null = null, headers: Record<string, string> = {}): FakeReply {
  return { status, headers: { ...requestHeaders(), ...headers }, body: { error: { message, type, param, code } } };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (isRecord(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('');
  return '';
}

function chatCompletion(call: RecordedCall, o: FakeOpenAIOptions): FakeReply {
  const b = call.body;
  if (!isRecord(b) || typeof b['model'] !== 'string' || !Array.isArray(b['messages']) || b['messages'].length === 0) {
    return openAIError(400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages');
  }
  const messages = b['messages'].filter(isRecord);
  const user = messages.filter((m) => m['role'] === 'user').map((m) => textOf(m['content'])).join('\n');
  if (user.includes(FAKE_REFUSE_MARKER) || o.refusingModels?.includes(b['model'])) {
    return openAIError(400, 'Your request was rejected as a result of our safety system.', 'invalid_request_error', 'content_policy_violation');
  }
  const maxTokens = Number(b['max_completion_tokens'] ?? b['max_tokens'] ?? 4096);
  const special = toolOrStructured(b, user);
  const reply =
    special === null ? echoReply(user, maxTokens)
    : special.kind === 'tool_result' ? echoReply(special.text, maxTokens)
    : { text: special.kind === 'json' ? special.text : '', tokens: countTokens(special.kind === 'json' ? special.text : special.arguments), truncated: false };
  const toolCall = special?.kind === 'tool_call' ? special : null;
  const promptTokens = messages.reduce((n, m) => n + countTokens(textOf(m['content'])), 0);
  const usage: Record<string, unknown> = {
    prompt_tokens: promptTokens,
    completion_tokens: reply.tokens,
    total_tokens: promptTokens + reply.tokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
  if (o.reportCost) usage['cost'] = ((promptTokens + reply.tokens) * o.reportCost.microUsdPerToken) / 1_000_000;
  const finishReason = toolCall ? 'tool_calls' : reply.truncated ? 'length' : 'stop';
  if (b['stream'] === true) {
    const options = isRecord(b['stream_options']) ? b['stream_options'] : {};
    return chatStream(String(b['model']), reply.text, finishReason, options['include_usage'] === true ? usage : null, toolCall);
  }
  return {
    headers: requestHeaders(),
    body: {
      id: fakeId('chatcmpl-'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: b['model'],
      choices: [
        {
          index: 0,
          message: toolCall
            ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: toolCall.arguments } }] }
            : { role: 'assistant', content: reply.text, refusal: null },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage,
      system_fingerprint: 'fp_fake',
    },
  };
}

/** The answer as server-sent chunks (https://platform.openai.com/docs/api-reference/chat-streaming). */
function chatStream(model: string, text: string, finishReason: string, usage: Record<string, unknown> | null, toolCall: { id: string; name: string; arguments: string } | null): FakeReply {
  const id = fakeId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices, ...extra })}\n\n`;
  const words = text.split(' ');
  const deltas = toolCall
    ? [
        { tool_calls: [{ index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: '' } }] },
        { tool_calls: [{ index: 0, function: { arguments: toolCall.arguments } }] },
      ]
    : words.map((w, i) => ({ content: i === 0 ? w : ` ${w}` }));
  const events = [
    chunk([{ index: 0, delta: { role: 'assistant', content: toolCall ? null : '', refusal: null }, logprobs: null, finish_reason: null }]),
    ...deltas.map((delta) => chunk([{ index: 0, delta, logprobs: null, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]),
    ...(usage ? [chunk([], { usage })] : []),
    'data: [DONE]\n\n',
  ];
  return { headers: { ...requestHeaders(), 'content-type': 'text/event-stream' }, body: events.join('') };
}

function imageGeneration(call: RecordedCall): FakeReply {
  const b = call.body;
  if (!isRecord(b) || typeof b['prompt'] !== 'string' || typeof b['model'] !== 'string') {
    return openAIError(400, "Missing required parameter: 'prompt'.", 'invalid_request_error', 'missing_required_parameter', 'prompt');
  }
  if (b['prompt'].includes(FAKE_REFUSE_MARKER)) {
    return openAIError(400, 'Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.', 'image_generation_user_error', 'moderation_blocked');
  }
  const size = typeof b['size'] === 'string' ? b['size'] : '1024x1024';
  if (!IMAGE_SIZES.includes(size)) {
    return openAIError(400, `Invalid value: '${size}'. Supported values are: ${IMAGE_SIZES.map((s) => `'${s}'`).join(', ')}.`, 'invalid_request_error', 'invalid_value', 'size');
  }
  const [w, h] = (size === 'auto' ? '1024x1024' : size).split('x').map(Number);
  const n = Number(b['n'] ?? 1);
  if (!Number.isInteger(n) || n < 1 || n > 10) return openAIError(400, `Invalid 'n': integer above maximum value. Expected a value <= 10, but got ${n} instead.`, 'invalid_request_error', 'integer_above_max_value', 'n');
  const png = solidPng(w ?? 1024, h ?? 1024, colourOf(b['prompt'])).toString('base64');
  return {
    headers: requestHeaders(),
    body: {
      created: Math.floor(Date.now() / 1000),
      data: Array.from({ length: n }, () => ({ b64_json: png })),
      background: b['background'] ?? 'opaque',
      output_format: 'png',
      quality: b['quality'] ?? 'auto',
      size,
      usage: imageUsage(b['model'], b['prompt'], b['quality'], size, n),
    },
  };
}

/** The routes of the fake OpenAI API (also usable on a shared FakeUpstream). */
export function openAIRoutes(options: FakeOpenAIOptions = {}): FakeRoute[] {
  const prefix = options.prefix ?? '/v1';
  return [
    { method: 'POST', path: `${prefix}/chat/completions`, handler: (call) => chatCompletion(call, options) },
    { method: 'POST', path: `${prefix}/images/generations`, handler: (call) => imageGeneration(call) },
    { method: 'POST', path: `${prefix}/responses`, handler: (call) => createResponse(call, requestHeaders, (status, message, code, param) => openAIError(status, message, 'invalid_request_error', code, param)) },
  ];
}

/** Starts a fake OpenAI API; point the adapter's baseURL at `${fake.url}/v1`. */
export function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeUpstream> {
  return FakeUpstream.start(openAIRoutes(options));
}

/** OpenAI's documented failures, as faults to inject with `fake.failNext(...)`. */
export const openAIFaults = {
  rateLimited: (retryAfterSeconds: number): FakeFault => ({
    kind: 'status',
    status: 429,
    headers: { ...requestHeaders(), 'retry-after': String(retryAfterSeconds), 'x-ratelimit-remaining-requests': '0' },
    body: { error: { message: 'Rate limit reached for gpt-4.1 in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
  }),
  insufficientQuota: (): FakeFault => ({
    kind: 'status',
    status: 429,
    headers: requestHeaders(),
    body: { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } },
  }),
  invalidApiKey: (shownKey: string): FakeFault => ({
    kind: 'status',
    status: 401,
    headers: requestHeaders(),
    body: { error: { message: `Incorrect API key provided: ${shownKey}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
  }),
  contentPolicy: (): FakeFault => ({
    kind: 'status',
    status: 400,
    headers: requestHeaders(),
    body: { error: { message: 'Your request was rejected as a result of our safety system.', type: 'invalid_request_error', param: null, code: 'content_policy_violation' } },
  }),
  invalidRequest: (param: string, message: string): FakeFault => ({
    kind: 'status',
    status: 400,
    headers: requestHeaders(),
    body: { error: { message, type: 'invalid_request_error', param, code: 'invalid_value' } },
  }),
  serverError: (): FakeFault => ({
    kind: 'status',
    status: 500,
    headers: requestHeaders(),
    body: { error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } },
  }),
  overloaded: (): FakeFault => ({
    kind: 'status',
    status: 503,
    headers: requestHeaders(),
    body: { error: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', param: null, code: null } },
  }),
};
