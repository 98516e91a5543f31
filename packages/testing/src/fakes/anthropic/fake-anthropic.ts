/*
 * A fake of Anthropic's Messages API, following its documented shapes:
 * - Messages: https://docs.anthropic.com/en/api/messages (POST /v1/messages with `x-api-key` and
 *   `anthropic-version`; request `model`, `max_tokens`, `messages`, `system`, `temperature`, `top_p`,
 *   `thinking`, `output_config.effort`; response `type: "message"` with `content[]` (a `thinking` block
 *   with its `signature` first when thinking is on), `stop_reason`
 *   (`end_turn`, `max_tokens`, `refusal`) and `usage.input_tokens` / `usage.output_tokens`).
 * - Streaming (`stream: true`): https://docs.anthropic.com/en/api/messages-streaming (server-sent events
 *   message_start, content_block_start, content_block_delta with text_delta, content_block_stop,
 *   message_delta with `stop_reason` and the output `usage`, message_stop).
 * - Tool use: https://docs.anthropic.com/en/docs/build-with-claude/tool-use (request `tools[]` of `{ name,
 *   description, input_schema }`, `tool_choice`; answer a `tool_use` content block `{ id, name, input }` with
 *   `stop_reason: "tool_use"`; the next user message carries `tool_result` blocks) and structured outputs
 *   (https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs: `output_config.format` of
 *   type `json_schema`, the text is JSON of the schema). Streamed tool input comes as `input_json_delta`.
 * - Errors: https://docs.anthropic.com/en/api/errors (body `{ type: "error", error: { type, message },
 *   request_id }`; 400 invalid_request_error, 401 authentication_error, 403 permission_error,
 *   404 not_found_error, 413 request_too_large, 429 rate_limit_error with `retry-after`, 500 api_error,
 *   529 overloaded_error; the `request-id` header on every answer).
 * - Sampling limits of current models (https://platform.claude.com/docs/en/about-claude/models/overview):
 *   Claude 5.x models answer 400 to non-default temperature/top_p/top_k; Claude Haiku 4.5 refuses
 *   temperature and top_p together.
 */
import { FakeUpstream, type FakeFault, type FakeReply, type FakeRoute, type RecordedCall } from '../fake-upstream.js';
import { countTokens, echoReply, FAKE_REFUSE_MARKER, fakeId, fillSchema, isRecord } from '../fake-text.js';

let sequence = 0;
const requestId = () => `req_fake${(++sequence).toString(16).padStart(10, '0')}`;

export function anthropicError(status: number, type: string, message: string, headers: Record<string, string> = {}): FakeReply {
  const id = requestId();
  return { status, headers: { 'request-id': id, ...headers }, body: { type: 'error', error: { type, message }, request_id: id } };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (isRecord(p) && p['type'] === 'text' && typeof p['text'] === 'string' ? p['text'] : '')).join('');
  return '';
}

const NO_SAMPLING = /^claude-(sonnet|haiku|opus|fable)-5/;
const EXCLUSIVE_SAMPLING = /^claude-(sonnet|haiku|opus)-4-5/;

/**
 * Prompt caching (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching): the prompt up to
 * the last block marked `cache_control` (tools, then system, then messages) is the cached prefix. The
 * first request with a prefix writes it (`cache_creation_input_tokens`), later ones read it
 * (`cache_read_input_tokens`); `input_tokens` counts the input after the prefix. Here the prefix's tokens
 * are those of its system and message text (tool definitions count no tokens in this fake).
 */
function cacheSegments(b: Record<string, unknown>): { text: string; cached: boolean }[] {
  const marked = (x: Record<string, unknown>) => isRecord(x['cache_control']);
  const segments: { text: string; cached: boolean }[] = [];
  for (const t of Array.isArray(b['tools']) ? b['tools'].filter(isRecord) : []) segments.push({ text: '', cached: marked(t) });
  if (typeof b['system'] === 'string') segments.push({ text: b['system'], cached: false });
  for (const s of Array.isArray(b['system']) ? b['system'].filter(isRecord) : []) segments.push({ text: typeof s['text'] === 'string' ? s['text'] : '', cached: marked(s) });
  for (const m of Array.isArray(b['messages']) ? b['messages'].filter(isRecord) : []) {
    if (typeof m['content'] === 'string') segments.push({ text: m['content'], cached: false });
    for (const c of Array.isArray(m['content']) ? m['content'].filter(isRecord) : []) segments.push({ text: textOf([c]), cached: marked(c) });
  }
  return segments;
}

type CacheUsage = { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };

function cacheUsage(b: Record<string, unknown>, inputTokens: number, cache: Set<string>): CacheUsage {
  const segments = cacheSegments(b);
  const last = segments.map((s) => s.cached).lastIndexOf(true);
  if (last < 0) return { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const prefix = segments.slice(0, last + 1);
  const tokens = Math.min(inputTokens, prefix.reduce((n, seg) => n + (seg.text === '' ? 0 : countTokens(seg.text)), 0));
  const key = `${String(b['model'])}\n${JSON.stringify(prefix)}`;
  const hit = cache.has(key);
  cache.add(key);
  return { input_tokens: inputTokens - tokens, cache_creation_input_tokens: hit ? 0 : tokens, cache_read_input_tokens: hit ? tokens : 0 };
}

function messages(call: RecordedCall, cache: Set<string> = new Set()): FakeReply {
  if (!call.credential) return anthropicError(401, 'authentication_error', 'x-api-key header is required');
  if (!call.headers['anthropic-version']) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
  const b = call.body;
  if (!isRecord(b) || typeof b['model'] !== 'string' || !Array.isArray(b['messages'])) {
    return anthropicError(400, 'invalid_request_error', 'messages: Field required');
  }
  if (typeof b['max_tokens'] !== 'number') return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required');
  const model = b['model'];
  if (NO_SAMPLING.test(model)) {
    for (const k of ['temperature', 'top_p', 'top_k']) {
      if (b[k] !== undefined) return anthropicError(400, 'invalid_request_error', `${k} is not supported for this model.`);
    }
  }
  if (EXCLUSIVE_SAMPLING.test(model) && b['temperature'] !== undefined && b['top_p'] !== undefined) {
    return anthropicError(400, 'invalid_request_error', 'temperature and top_p cannot both be specified for this model. Please use only one.');
  }
  const thinking = isRecord(b['thinking']) ? b['thinking'] : null;
  if (thinking?.['type'] === 'enabled' && !(typeof thinking['budget_tokens'] === 'number' && thinking['budget_tokens'] >= 1024 && thinking['budget_tokens'] < b['max_tokens'])) {
    return anthropicError(400, 'invalid_request_error', 'thinking.budget_tokens: must be at least 1024 and less than max_tokens');
  }
  const user = b['messages'].filter(isRecord).map((m) => textOf(m['content'])).join('\n');
  const system = typeof b['system'] === 'string' ? b['system'] : Array.isArray(b['system']) ? textOf(b['system']) : '';
  const inputTokens = countTokens(user) + countTokens(system);
  const usageIn = cacheUsage(b, inputTokens, cache);
  const id = requestId();
  const base = { id: fakeId('msg_'), type: 'message', role: 'assistant', model, stop_sequence: null };
  if (user.includes(FAKE_REFUSE_MARKER)) {
    return {
      headers: { 'request-id': id },
      body: { ...base, content: [], stop_reason: 'refusal', usage: { ...usageIn, output_tokens: 0 } },
    };
  }
  const toolResult = lastToolResult(b['messages']);
  const tool = toolResult === null ? chosenTool(b) : null;
  const format = isRecord(b['output_config']) && isRecord(b['output_config']['format']) ? b['output_config']['format'] : null;
  const json = tool === null && toolResult === null && format?.['type'] === 'json_schema' ? JSON.stringify(fillSchema(format['schema'], user)) : null;
  const reply = json !== null ? { text: json, tokens: countTokens(json), truncated: false } : echoReply(toolResult ?? user, b['max_tokens']);
  const toolUse = tool ? { type: 'tool_use', id: `toolu_fake${b['messages'].length}`, name: tool.name, input: fillSchema(tool.schema, user) } : null;
  const stopReason = toolUse ? 'tool_use' : reply.truncated ? 'max_tokens' : 'end_turn';
  // Extended thinking (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking): a thinking block
  // with its signature before the text (streamed as thinking_delta, then signature_delta).
  const thought = thinking?.['type'] === 'enabled' || thinking?.['type'] === 'adaptive' ? { thinking: `Thinking about: ${user.slice(0, 60)}`, signature: 'sig_fake_0123456789' } : null;
  if (b['stream'] === true && toolUse) {
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const events = [
      event('message_start', { message: { ...base, content: [], stop_reason: null, usage: { ...usageIn, output_tokens: 1 } } }),
      event('content_block_start', { index: 0, content_block: { ...toolUse, input: {} } }),
      event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(toolUse.input) } }),
      event('content_block_stop', { index: 0 }),
      event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } }),
      event('message_stop', {}),
    ];
    return { headers: { 'request-id': id, 'content-type': 'text/event-stream' }, body: events.join('') };
  }
  if (toolUse) {
    return { headers: { 'request-id': id }, body: { ...base, content: [toolUse], stop_reason: stopReason, usage: { ...usageIn, output_tokens: 5 } } };
  }
  if (b['stream'] === true) {
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const words = reply.text.split(' ');
    const t = thought ? 1 : 0;
    const events = [
      event('message_start', { message: { ...base, content: [], stop_reason: null, usage: { ...usageIn, output_tokens: 1 } } }),
      ...(thought
        ? [
            event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
            event('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: thought.thinking } }),
            event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: thought.signature } }),
            event('content_block_stop', { index: 0 }),
          ]
        : []),
      event('content_block_start', { index: t, content_block: { type: 'text', text: '' } }),
      ...words.map((w, i) => event('content_block_delta', { index: t, delta: { type: 'text_delta', text: i === 0 ? w : ` ${w}` } })),
      event('content_block_stop', { index: t }),
      event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: reply.tokens } }),
      event('message_stop', {}),
    ];
    return { headers: { 'request-id': id, 'content-type': 'text/event-stream' }, body: events.join('') };
  }
  return {
    headers: { 'request-id': id },
    body: {
      ...base,
      content: [...(thought ? [{ type: 'thinking', ...thought }] : []), { type: 'text', text: reply.text }],
      stop_reason: stopReason,
      usage: { ...usageIn, output_tokens: reply.tokens },
    },
  };
}

/** The text of the last message's tool_result blocks, when the last message answers a tool call. */
function lastToolResult(messages: unknown[]): string | null {
  const last = messages.filter(isRecord).at(-1);
  const blocks = Array.isArray(last?.['content']) ? last['content'].filter(isRecord) : [];
  const results = blocks.filter((c) => c['type'] === 'tool_result');
  if (results.length === 0) return null;
  return results.map((r) => (typeof r['content'] === 'string' ? r['content'] : textOf(r['content']))).join('\n');
}

function chosenTool(b: Record<string, unknown>): { name: string; schema: unknown } | null {
  const tools = Array.isArray(b['tools']) ? b['tools'].filter(isRecord) : [];
  const choice = isRecord(b['tool_choice']) ? b['tool_choice'] : {};
  if (tools.length === 0 || choice['type'] === 'none') return null;
  const tool = tools.find((t) => choice['type'] !== 'tool' || t['name'] === choice['name']);
  return tool && typeof tool['name'] === 'string' ? { name: tool['name'], schema: tool['input_schema'] } : null;
}

export function anthropicRoutes(): FakeRoute[] {
  const cache = new Set<string>();
  return [{ method: 'POST', path: '/v1/messages', handler: (call) => messages(call, cache) }];
}

/** Starts a fake Anthropic API; point the adapter's baseURL at `${fake.url}/v1`. */
export function startFakeAnthropic(): Promise<FakeUpstream> {
  return FakeUpstream.start(anthropicRoutes());
}

const fault = (status: number, type: string, message: string, headers: Record<string, string> = {}): FakeFault => {
  const r = anthropicError(status, type, message, headers);
  return { kind: 'status', status, headers: r.headers ?? {}, body: r.body };
};

/** Anthropic's documented failures, as faults to inject with `fake.failNext(...)`. */
export const anthropicFaults = {
  rateLimited: (retryAfterSeconds: number): FakeFault =>
    fault(429, 'rate_limit_error', 'This request would exceed the rate limit for your organization of 50 requests per minute.', {
      'retry-after': String(retryAfterSeconds),
      'anthropic-ratelimit-requests-remaining': '0',
    }),
  overloaded: (): FakeFault => fault(529, 'overloaded_error', 'Overloaded'),
  apiError: (): FakeFault => fault(500, 'api_error', 'Internal server error'),
  invalidKey: (): FakeFault => fault(401, 'authentication_error', 'invalid x-api-key'),
  permission: (): FakeFault => fault(403, 'permission_error', 'Your API key does not have permission to use the specified resource.'),
  creditBalanceTooLow: (): FakeFault =>
    fault(400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.'),
  invalidRequest: (message: string): FakeFault => fault(400, 'invalid_request_error', message),
  notFound: (model: string): FakeFault => fault(404, 'not_found_error', `model: ${model}`),
  tooLarge: (): FakeFault => fault(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
};
