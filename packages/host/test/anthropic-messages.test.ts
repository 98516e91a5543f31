import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicAdapter, SandboxAdapter } from '@gengate/adapters';
import { anthropicFaults, createMemoryGengate, startFakeAnthropic, type FakeUpstream, type MemoryGengate } from '@gengate/testing';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIRouter } from '../src/http/openai/create-openai-router.js';
import { parseEvents, streamProblems } from './support/anthropic-stream.js';

/**
 * POST /v1/messages (Anthropic's Messages dialect) in process, over the in-memory stores, driven by the
 * official `@anthropic-ai/sdk` (1.14, unmodified) and by raw requests: the sandbox chat model and Claude
 * through the Anthropic adapter and the fake Anthropic API. Every raw stream is checked against the
 * documented event flow (support/anthropic-stream.ts).
 */
const ANTHROPIC_KEY = 'sk-ant-fake-messages-0123456789';
/** The sandbox's markers (SANDBOX_DROP_MARKER, SANDBOX_FAIL_MARKER): the stream breaks after three pieces; the call fails. */
const DROP = '[sandbox:drop]';
const FAIL = '[sandbox:fail]';
let memory: MemoryGengate;
let fake: FakeUpstream;
let server: Server;
let base: string;
let key: string;
let userId: string;
let client: Anthropic;
let n = 0;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  memory = createMemoryGengate({
    adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 1, video: 20 } }), new AnthropicAdapter({ apiKey: ANTHROPIC_KEY, baseURL: `${fake.url}/v1` })],
  });
  const app = express().use('/v1', createOpenAIRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger: pino({ level: 'silent' }), keepAliveMs: 60_000 }));
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ key, userId } = await newUser());
  client = new Anthropic({ baseURL: base, apiKey: key, maxRetries: 0 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await fake.close();
});

async function newUser(credits = 1000): Promise<{ key: string; userId: string }> {
  const u = await memory.gengate.admin.createUser({ email: `messages${++n}@example.com`, credits });
  return { key: u.api_key, userId: u.user_id };
}

const post = (body: unknown, headers: Record<string, string> = {}, path = '/v1/messages') =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const taskIdOf = (messageId: string) => messageId.replace(/^msg_/, '');
const usageCharges = (uid = userId) => memory.db.transactions.filter((t) => t.userId === uid && t.paymentMethod === 'usage');

describe('POST /v1/messages on the sandbox', () => {
  it('answers a Message through the SDK, recorded and charged as a gengate task', async () => {
    const before = usageCharges().length;
    const message = await client.messages.create({ model: 'sandbox.echo-chat', max_tokens: 64, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello there' }] });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'sandbox.echo-chat', stop_reason: 'end_turn', stop_sequence: null });
    expect(message.content).toEqual([{ type: 'text', text: expect.stringContaining('Hello there') }]);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const task = memory.db.tasks.get(taskIdOf(message.id));
    expect(task).toMatchObject({ status: 'success', modelId: 'sandbox.echo-chat', userId });
    const charges = usageCharges();
    expect(charges.length).toBe(before + 1);
    expect(charges.at(-1)?.taskId).toBe(task?.id);
    expect([...memory.db.holds.values()].filter((h) => h.taskId === task?.id).map((h) => h.state)).toEqual(['settled']);
  });

  it('streams the documented event flow; the SDK assembles the same Message', async () => {
    const res = await post({ model: 'sandbox.echo-chat', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Stream me' }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseEvents(await res.text());
    expect(streamProblems(events)).toEqual([]);
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']));
    const stream = client.messages.stream({ model: 'sandbox.echo-chat', max_tokens: 64, messages: [{ role: 'user', content: 'Stream me' }] });
    let text = '';
    stream.on('text', (t) => (text += t));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text }]);
    expect(text).toContain('Stream me');
    expect(final.stop_reason).toBe('end_turn');
  });

  it('runs a tool-use round trip (tool_use, then a tool_result answered)', async () => {
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const first = await client.messages.create({ model: 'sandbox.echo-chat', max_tokens: 64, tools, tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: expect.any(String) } });
    if (use?.type !== 'tool_use') throw new Error('no tool_use');
    const second = await client.messages.create({
      model: 'sandbox.echo-chat',
      max_tokens: 64,
      tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 21 C' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Sunny, 21 C') });
    // Streamed tool use: a tool_use block with input_json_delta events.
    const events = parseEvents(await (await post({ model: 'sandbox.echo-chat', max_tokens: 64, stream: true, tools, messages: [{ role: 'user', content: 'Weather?' }] })).text());
    expect(streamProblems(events)).toEqual([]);
    expect(events.some((e) => e.event === 'content_block_delta' && (e.data['delta'] as { type: string }).type === 'input_json_delta')).toBe(true);
  });

  it('ends a stream that breaks after output with an error event (no message_stop), charging what was produced; a refusal before output is a 400, uncharged', async () => {
    const res = await post({ model: 'sandbox.echo-chat', max_tokens: 64, stream: true, messages: [{ role: 'user', content: `one two three four five six seven eight ${DROP}` }] });
    const events = parseEvents(await res.text());
    expect(streamProblems(events)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { type: 'error', error: { type: 'api_error' } } });
    expect(events.some((e) => e.event === 'message_stop')).toBe(false);
    const taskId = taskIdOf(((events[0]?.data['message'] ?? {}) as { id: string }).id);
    expect(memory.db.tasks.get(taskId)?.status).toBe('success');
    expect(usageCharges().some((t) => t.taskId === taskId && t.creditsMicro < 0)).toBe(true);
    const before = usageCharges().length;
    const failed = await post({ model: 'sandbox.echo-chat', max_tokens: 64, stream: true, messages: [{ role: 'user', content: FAIL }] });
    // The sandbox's fail marker is an upstream refusal of the input (kind invalid_input).
    expect(failed.status).toBe(400);
    expect(await failed.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(usageCharges().length).toBe(before);
  });

  it('drops anthropic-beta for a model that is not Anthropic, with a warning on the task', async () => {
    const res = await post({ model: 'sandbox.echo-chat', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }, { 'anthropic-beta': 'prompt-caching-2024-07-31' });
    expect(res.status).toBe(200);
    const task = memory.db.tasks.get(taskIdOf(((await res.json()) as { id: string }).id));
    expect(task?.warnings.map((w) => w.param)).toEqual(expect.arrayContaining(['anthropic-beta', 'anthropic-version']));
  });
});

describe('a request shaped as Claude Code sends it', () => {
  // What @anthropic-ai/claude-code 2.1.332 sent to POST /v1/messages?beta=true (toolchain facts, and a run
  // against this router): system blocks with cache_control, a system message between turns, adaptive
  // thinking with display, context_management, output_config.effort, deferred tools, max_tokens 32,000,
  // and a system prompt and tools far past the run limits on text.
  const claudeCode = (model: string) => ({
    model,
    max_tokens: 32_000,
    stream: true,
    system: [
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.332' },
      { type: 'text', text: 'You are Claude Code. '.repeat(2_500), cache_control: { type: 'ephemeral' } },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: '<system-reminder>env</system-reminder>' }, { type: 'text', text: 'say hi' }] },
      { role: 'system', content: [{ type: 'text', text: 'Mid-conversation reminder.' }] },
    ],
    tools: [{ name: 'Read', description: 'Reads a file. '.repeat(500), input_schema: { type: 'object', properties: { path: { type: 'string' } } }, defer_loading: true }],
    tool_choice: { type: 'none' },
    metadata: { user_id: JSON.stringify({ device_id: 'd'.repeat(64), session_id: 's' }) },
    thinking: { type: 'adaptive', display: 'omitted' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    output_config: { effort: 'high' },
  });

  it('streams an answer on the sandbox (max_tokens cut to the model\'s maximum, with warnings on the task) and on Claude', async () => {
    for (const model of ['sandbox.echo-chat', 'claude-sonnet-4-5']) {
      const res = await post(claudeCode(model), { 'anthropic-beta': 'claude-code-20250219,mid-conversation-system-2026-04-07' }, '/v1/messages?beta=true');
      expect(res.status, model).toBe(200);
      const events = parseEvents(await res.text());
      expect(streamProblems(events)).toEqual([]);
      const task = memory.db.tasks.get(taskIdOf(((events[0]?.data['message'] ?? {}) as { id: string }).id));
      expect(task?.status).toBe('success');
      // The whole input was held, not the cut text recorded on the task: on Claude Sonnet ($2 / $10 per 1M),
      // more than 50,000 input bytes (about 59,700 in all; cut, 32,000 of system text and the rest) and 32,000 output tokens.
      if (model !== 'sandbox.echo-chat') expect(task?.quotedCostMicro).toBeGreaterThan((50_000 * 2_000_000 + 32_000 * 10_000_000) / 10_000);
      expect(task?.request.prompt?.length).toBeLessThanOrEqual(32_000);
      expect(task?.warnings.map((w) => w.param)).toEqual(expect.arrayContaining(model === 'sandbox.echo-chat' ? ['max_tokens', 'context_management', 'anthropic-beta'] : ['context_management']));
    }
    const [call] = fake.callsTo('POST', '/v1/messages').slice(-1);
    expect(call?.body).toMatchObject({ model: 'claude-sonnet-5-5', thinking: { type: 'adaptive', display: 'omitted' }, output_config: { effort: 'high' }, messages: [{ role: 'user' }, { role: 'system', content: [{ type: 'text', text: 'Mid-conversation reminder.' }] }] });
  });
});

describe('POST /v1/messages on Claude through the Anthropic adapter', () => {
  it('forwards system blocks, cache_control, metadata and the version and beta headers; ?beta=true is accepted', async () => {
    fake.reset();
    const res = await post(
      {
        model: 'claude-haiku-4-5-20251001',
        max_tokens: 2_048,
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
        metadata: { user_id: 'user-42' },
        thinking: { type: 'enabled', budget_tokens: 1_024 },
        stop_sequences: ['STOP'],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello Claude', cache_control: { type: 'ephemeral', ttl: '5m' } }] }],
      },
      { 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
      '/v1/messages?beta=true',
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { model: string; content: { type: string; text: string }[] };
    expect(body.model).toBe('anthropic.claude-haiku-4-5');
    expect(body.content.at(-1)?.text).toContain('Hello Claude');
    const [call] = fake.callsTo('POST', '/v1/messages');
    expect(call?.headers['anthropic-version']).toBe('2023-06-01');
    expect(call?.headers['anthropic-beta']).toContain('interleaved-thinking-2025-05-14');
    expect(call?.body).toMatchObject({
      model: 'claude-haiku-4-5',
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      metadata: { user_id: 'user-42' },
      thinking: { type: 'enabled', budget_tokens: 1_024 },
      stop_sequences: ['STOP'],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello Claude', cache_control: { type: 'ephemeral', ttl: '5m' } }] }],
    });
  });

  it('streams thinking (thinking_delta, signature_delta) and takes the signed thinking block back in the next turn', async () => {
    const request = { model: 'anthropic.claude-haiku-4-5', max_tokens: 2_048, thinking: { type: 'enabled' as const, budget_tokens: 1_024 }, messages: [{ role: 'user' as const, content: 'Think first' }] };
    const events = parseEvents(await (await post({ ...request, stream: true })).text());
    expect(streamProblems(events)).toEqual([]);
    const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => e.data['delta'] as { type: string });
    expect(deltas.map((d) => d.type)).toEqual(expect.arrayContaining(['thinking_delta', 'signature_delta', 'text_delta']));
    const first = await client.messages.create(request);
    expect(first.content[0]).toMatchObject({ type: 'thinking', thinking: expect.stringContaining('Think first'), signature: 'sig_fake_0123456789' });
    fake.reset();
    await client.messages.create({ ...request, messages: [...request.messages, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }, { type: 'text', text: 'and this?' }] }] });
    expect(fake.callsTo('POST', '/v1/messages')[0]?.body).toMatchObject({
      messages: [
        { role: 'user' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: expect.any(String), signature: 'sig_fake_0123456789' }, { type: 'text' }] },
        { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }, { type: 'text', text: 'and this?' }] },
      ],
    });
  });

  it('answers the upstream\'s refusals as Anthropic would: a rejected request 400, a rate limit 429 with Retry-After, a 5xx 502; nothing charged', async () => {
    const before = usageCharges().length;
    const call = () => post({ model: 'anthropic.claude-haiku-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    fake.failNext(anthropicFaults.invalidRequest('messages: text content blocks must be non-empty'));
    const invalid = await call();
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('non-empty') } });
    fake.failNext(anthropicFaults.rateLimited(7), { times: 5 });
    const limited = await call();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    fake.reset();
    fake.failNext(anthropicFaults.apiError(), { times: 5 });
    const broken = await call();
    expect(broken.status).toBe(502);
    expect(await broken.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    fake.reset();
    expect(usageCharges().length).toBe(before);
  });

  it('streams Claude (text and tool use) in the documented flow', async () => {
    const text = parseEvents(await (await post({ model: 'anthropic.claude-haiku-5-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'one two three' }] })).text());
    expect(streamProblems(text)).toEqual([]);
    expect(text.filter((e) => e.event === 'content_block_delta').length).toBeGreaterThan(1);
    const tools = [{ name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }];
    const tool = parseEvents(await (await post({ model: 'claude-haiku-5-5', max_tokens: 64, stream: true, tools, messages: [{ role: 'user', content: 'find it' }] })).text());
    expect(streamProblems(tool)).toEqual([]);
    expect(tool.find((e) => e.event === 'message_delta')?.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });
});

describe('prompt caching', () => {
  it('charges the cache writes and reads the upstream reports at the model\'s cached prices (ledger checked exactly)', async () => {
    const payer = await newUser();
    const sdk = new Anthropic({ baseURL: base, apiKey: payer.key, maxRetries: 0 });
    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'anthropic.claude-haiku-4-5',
      max_tokens: 64,
      system: [{ type: 'text', text: 'You answer questions about this long manual. '.repeat(40), cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'What does chapter one say?' }],
    };
    const first = await sdk.messages.create(request);
    const second = await sdk.messages.create(request);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    // Claude Haiku 4.5 (micro-USD per 1M tokens): input 1,000,000, 5-minute cache write 1,250,000, cache read 100,000, output 5,000,000.
    // pico-USD = tokens x micro-USD per 1M; 1 micro-credit = 10,000 pico-USD, rounded up once; no markup here.
    const expected = (u: Anthropic.Usage) =>
      Math.ceil((u.input_tokens * 1_000_000 + (u.cache_creation_input_tokens ?? 0) * 1_250_000 + (u.cache_read_input_tokens ?? 0) * 100_000 + u.output_tokens * 5_000_000) / 10_000);
    const charges = usageCharges(payer.userId);
    expect(charges.map((t) => [t.taskId, t.creditsMicro])).toEqual([
      [taskIdOf(first.id), -expected(first.usage)],
      [taskIdOf(second.id), -expected(second.usage)],
    ]);
    expect(expected(second.usage)).toBeLessThan(expected(first.usage));
    expect(memory.db.tasks.get(taskIdOf(second.id))?.usage).toMatchObject({ cacheReadTokens: second.usage.cache_read_input_tokens });
  });
});

describe('POST /v1/messages/count_tokens', () => {
  it('estimates the input tokens through the SDK, without a task or a charge, for every model', async () => {
    const tasks = memory.db.tasks.size;
    const transactions = memory.db.transactions.length;
    const small = await client.messages.countTokens({ model: 'claude-haiku-5-5', messages: [{ role: 'user', content: 'Hello' }] });
    const large = await client.messages.countTokens({
      model: 'sandbox.echo-chat',
      system: 'You are a careful assistant.',
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'Hello '.repeat(100) }],
    });
    expect(small.input_tokens).toBe(2);
    expect(large.input_tokens).toBeGreaterThan(150);
    expect(memory.db.tasks.size).toBe(tasks);
    expect(memory.db.transactions.length).toBe(transactions);
    const unknown = await post({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }, {}, '/v1/messages/count_tokens');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });
});

describe('GET /v1/models with anthropic-version', () => {
  it('lists chat models in Anthropic\'s shape, paged, and resolves Claude names; without the header the OpenAI list answers', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list({ limit: 2 })) {
      expect(m).toMatchObject({ type: 'model', id: expect.any(String), display_name: expect.any(String), created_at: expect.any(String) });
      ids.push(m.id);
    }
    expect(ids).toEqual(expect.arrayContaining(['sandbox.echo-chat', 'anthropic.claude-haiku-5-5', 'anthropic.claude-sonnet-5-5']));
    expect(new Set(ids).size).toBe(ids.length);
    const page = (await (await fetch(`${base}/v1/models?limit=1`, { headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' } })).json()) as Record<string, unknown>;
    expect(page).toMatchObject({ has_more: true, first_id: ids[0], last_id: ids[0] });
    expect((await client.models.retrieve('claude-sonnet-4-5')).id).toBe('anthropic.claude-sonnet-5-5');
    expect((await client.models.retrieve('claude-haiku-4-5-20251001')).id).toBe('anthropic.claude-haiku-4-5');
    const openai = (await (await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    expect(openai['object']).toBe('list');
  });
});

describe('refusals in Anthropic\'s envelope', () => {
  it('answers bad input with 400 invalid_request_error and creates no task and no hold', async () => {
    const tasks = memory.db.tasks.size;
    const holds = memory.db.holds.size;
    for (const body of [{}, { model: 'sandbox.echo-chat', messages: [] , max_tokens: 5 }, { model: 'sandbox.echo-chat', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], surprise: 1 }]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.any(String) } });
    }
    await expect(client.messages.create({ model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    expect(memory.db.tasks.size).toBe(tasks);
    expect(memory.db.holds.size).toBe(holds);
  });

  it('authenticates by x-api-key or Authorization: Bearer; a wrong key is a 401 authentication_error', async () => {
    const bearer = new Anthropic({ baseURL: base, authToken: key, apiKey: null, maxRetries: 0 });
    expect((await bearer.messages.create({ model: 'sandbox.echo-chat', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })).type).toBe('message');
    const wrong = new Anthropic({ baseURL: base, apiKey: 'gg_wrong', maxRetries: 0 });
    await expect(wrong.messages.create({ model: 'sandbox.echo-chat', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    const res = await post({ model: 'sandbox.echo-chat', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': 'gg_wrong' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  it('refuses a call the balance cannot cover with 402 billing_error', async () => {
    const poor = await newUser(0);
    const res = await post({ model: 'anthropic.claude-haiku-5-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': poor.key });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
  });

  it('leaves the OpenAI routes in their own envelope', async () => {
    const res = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer gg_wrong', 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
  });
});
