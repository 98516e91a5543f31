import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicAdapter, createOpenAICompatibleAdapter, OPENROUTER_CLAUDE_PRESET, routeFamiliesFor } from '@gengate/adapters';
import { TOKENS, type MarkupPolicy, type RoutedModelDeclaration } from '@gengate/core';
import { createMemoryGengate, startFakeAnthropic, startFakeOpenAI, type FakeFault, type FakeUpstream, type MemoryGengate } from '@gengate/testing';
import express from 'express';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIRouter } from '../src/http/openai/create-openai-router.js';

/*
 * Issue 21 on the /v1 dialects: streams fall back only before their first byte. The shipped Claude family
 * (`claude-haiku-4-5`: A = Anthropic through the fake Anthropic API, B = OpenRouter's resale through the
 * openai-compatible adapter and the fake OpenAI API), and the same two routes the other way round
 * (`claude-haiku-4-5-reversed`: A = OpenRouter, B = Anthropic), driven by the official `openai` and
 * `@anthropic-ai/sdk` clients, over the whole core in memory. A is made dearer than B by the operator's
 * markup (x2 against x1), so the hold (the highest candidate quote, A's) and a charge at B's price differ.
 */

const ANTHROPIC_KEY = 'sk-ant-fake-routes-0123456789';
const OPENROUTER_KEY = 'sk-or-fake-routes-0123456789';
const MARKUP: MarkupPolicy = { defaultBp: 10_000, providers: new Map([['anthropic', 20_000]]), models: new Map() };
const REVERSED: RoutedModelDeclaration = { id: 'claude-haiku-4-5-reversed', name: 'Claude Haiku 4.5 (OpenRouter first)', routes: ['openrouter.claude-haiku-4.5', 'anthropic.claude-haiku-4-5'], policy: { ignore: [] } };

let anthropic: FakeUpstream;
let openai: FakeUpstream;
const servers: Server[] = [];

beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await Promise.all([anthropic?.close(), openai?.close()]);
});
afterEach(() => {
  anthropic.reset();
  openai.reset();
});

interface Gateway {
  readonly memory: MemoryGengate;
  readonly base: string;
  readonly key: string;
  readonly userId: string;
}

/** The gateway with both routes; `anthropicUrl` replaces the fake's address (a closed port: connection refused). */
async function gateway(anthropicUrl = `${anthropic.url}/v1`): Promise<Gateway> {
  const adapters = [
    new AnthropicAdapter({ apiKey: ANTHROPIC_KEY, baseURL: anthropicUrl }),
    createOpenAICompatibleAdapter({ ...OPENROUTER_CLAUDE_PRESET, baseURL: `${openai.url}/v1` }, { apiKey: OPENROUTER_KEY }),
  ];
  const families = routeFamiliesFor(adapters.flatMap((a) => a.models.map((m) => m.id)));
  const memory = createMemoryGengate({
    adapters,
    configure: (c) => {
      c.rebind(TOKENS.RoutedModels).toConstantValue([...families, REVERSED]);
      c.rebind(TOKENS.Markup).toConstantValue(MARKUP);
    },
  });
  const app = express().use('/v1', createOpenAIRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger: pino({ level: 'silent' }), keepAliveMs: 60_000 }));
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const u = await memory.gengate.admin.createUser({ email: `routes-v1-${crypto.randomUUID()}@example.com`, credits: 1_000 });
  return { memory, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, key: u.api_key, userId: u.user_id };
}

const usageCharges = (g: Gateway) => g.memory.db.transactions.filter((t) => t.userId === g.userId && t.paymentMethod === 'usage');
const taskOf = (g: Gateway, id: string) => g.memory.db.tasks.get(id.replace(/^(chatcmpl-|msg_)/, ''));
/** B's price of a usage at markup x1: $1 input, $5 output per 1M tokens, in micro-credits (1 credit = $0.01). */
const priceAtB = (input: number, output: number) => 100 * (input * 1 + output * 5);

const FAULTS: readonly { readonly name: string; readonly fault: FakeFault | 'refused' }[] = [
  { name: 'refusing connections', fault: 'refused' },
  { name: 'answering 500', fault: { kind: 'status', status: 500, body: { type: 'error', error: { type: 'api_error', message: 'Internal server error' } } } },
  { name: 'in a 429 storm', fault: { kind: 'status', status: 429, headers: { 'retry-after': '30' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' } } } },
];

describe('a routed Claude over /v1/chat/completions (openai SDK): A (Anthropic) failing before the first byte', () => {
  for (const { name, fault } of FAULTS) {
    it(`A ${name}: the stream is served by B (OpenRouter), invisibly; one charge at B's price; the answer names B`, async () => {
      const g = await gateway(fault === 'refused' ? 'http://127.0.0.1:9/v1' : undefined);
      if (fault !== 'refused') anthropic.failNext(fault, { times: 100 });
      const client = new OpenAI({ baseURL: `${g.base}/v1`, apiKey: g.key, maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'one two three' }], max_tokens: 64, stream: true, stream_options: { include_usage: true } });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const c of stream) chunks.push(c);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Echo: one two three');
      expect(new Set(chunks.map((c) => c.model))).toEqual(new Set(['claude-haiku-4-5']));
      expect(new Set(chunks.map((c) => (c as unknown as { provider: string }).provider))).toEqual(new Set(['openrouter']));
      const usage = chunks.at(-1)?.usage;
      if (!usage) throw new Error('no usage chunk');
      expect(fault === 'refused' ? 0 : anthropic.callsTo('POST', '/v1/messages').length).toBe(fault === 'refused' ? 0 : 1);
      expect(openai.callsTo('POST', '/v1/chat/completions')).toHaveLength(1);
      const charges = usageCharges(g);
      expect(charges).toHaveLength(1);
      expect(-(charges[0]?.creditsMicro ?? 0)).toBe(priceAtB(usage.prompt_tokens, usage.completion_tokens));
      const task = taskOf(g, chunks[0]?.id ?? '');
      expect(task?.status).toBe('success');
      expect(task?.routeId).toBe('openrouter.claude-haiku-4.5');
      expect(task?.routeAttempts?.map((a) => [a.route, a.outcome])).toEqual([
        ['anthropic.claude-haiku-4-5', 'error'],
        ['openrouter.claude-haiku-4.5', 'success'],
      ]);
      expect([...g.memory.db.holds.values()].filter((h) => h.taskId === task?.id).map((h) => h.state)).toEqual(['settled']);
    });
  }
});

describe('a routed Claude over /v1/messages (@anthropic-ai/sdk): A (OpenRouter) failing before the first byte', () => {
  for (const { name, fault } of FAULTS.filter((f) => f.fault !== 'refused')) {
    it(`A ${name}: the stream is served by B (Anthropic); one charge at B's price (markup x2: twice the list price)`, async () => {
      const g = await gateway();
      if (fault !== 'refused') openai.failNext(fault, { times: 100 });
      const client = new Anthropic({ baseURL: g.base, apiKey: g.key, maxRetries: 0 });
      const stream = client.messages.stream({ model: 'claude-haiku-4-5-reversed', max_tokens: 64, messages: [{ role: 'user', content: 'four five six' }] });
      const message = await stream.finalMessage();
      expect(message.content).toEqual([{ type: 'text', text: expect.stringContaining('four five six') }]);
      expect(message.model).toBe('claude-haiku-4-5-reversed');
      expect((message as unknown as { provider: string }).provider).toBe('anthropic');
      expect(openai.callsTo('POST', '/v1/chat/completions')).toHaveLength(1);
      expect(anthropic.callsTo('POST', '/v1/messages')).toHaveLength(1);
      const charges = usageCharges(g);
      expect(charges).toHaveLength(1);
      // B is Anthropic here, at the operator's x2.
      expect(-(charges[0]?.creditsMicro ?? 0)).toBe(2 * priceAtB(message.usage.input_tokens, message.usage.output_tokens));
      expect(taskOf(g, message.id)?.routeId).toBe('anthropic.claude-haiku-4-5');
    });
  }
});

describe('a stream whose route A fails after its first byte: no fallback', () => {
  it('/v1/chat/completions: A (Anthropic) breaks mid-stream: the client gets the error event, what was produced is charged, B never called', async () => {
    const g = await gateway();
    // message_start, content_block_start and two text deltas reach gengate, then the connection drops.
    anthropic.failNext({ kind: 'cut-stream', events: 4, then: 'drop' }, { match: (c) => c.path === '/v1/messages' });
    const client = new OpenAI({ baseURL: `${g.base}/v1`, apiKey: g.key, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'one two three four five six seven' }], max_tokens: 64, stream: true });
    const texts: string[] = [];
    let id = '';
    const error = await (async () => {
      try {
        for await (const c of stream) {
          id = c.id;
          texts.push(c.choices[0]?.delta.content ?? '');
        }
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(texts.join('').length).toBeGreaterThan(0);
    expect(openai.calls).toHaveLength(0);
    const task = taskOf(g, id);
    expect(task?.status).toBe('success');
    expect(task?.routeId).toBe('anthropic.claude-haiku-4-5');
    expect(task?.routeAttempts?.map((a) => [a.route, a.outcome])).toEqual([['anthropic.claude-haiku-4-5', 'error']]);
    const charges = usageCharges(g);
    expect(charges).toHaveLength(1);
    const charged = -(charges[0]?.creditsMicro ?? 0);
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThanOrEqual(task?.quotedMicro ?? 0);
  });

  it('/v1/messages: A (OpenRouter) breaks mid-stream: the SDK sees the error event, what was produced is charged, B (Anthropic) never called', async () => {
    const g = await gateway();
    // The role chunk and two text deltas, then the connection drops.
    openai.failNext({ kind: 'cut-stream', events: 3, then: 'drop' }, { match: (c) => c.path === '/v1/chat/completions' });
    const client = new Anthropic({ baseURL: g.base, apiKey: g.key, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude-haiku-4-5-reversed', max_tokens: 64, messages: [{ role: 'user', content: 'one two three four five six seven' }] });
    let text = '';
    stream.on('text', (t) => {
      text += t;
    });
    const error = await stream.finalMessage().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(text.length).toBeGreaterThan(0);
    expect(anthropic.calls).toHaveLength(0);
    const [task] = [...g.memory.db.tasks.values()];
    expect(task?.status).toBe('success');
    expect(task?.routeId).toBe('openrouter.claude-haiku-4.5');
    const charges = usageCharges(g);
    expect(charges).toHaveLength(1);
    expect(-(charges[0]?.creditsMicro ?? 0)).toBeGreaterThan(0);
  });
});

describe("request-level `models` fallback (OpenRouter's models)", () => {
  it("the first model's routes all failing: the next model serves, and the answer names it (non-streamed and streamed)", async () => {
    const g = await gateway();
    anthropic.failNext({ kind: 'status', status: 503, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }, { times: 100 });
    const client = new OpenAI({ baseURL: `${g.base}/v1`, apiKey: g.key, maxRetries: 0 });
    const body = { model: 'anthropic.claude-haiku-4-5', models: ['openrouter.claude-haiku-4.5'], messages: [{ role: 'user' as const, content: 'seven eight' }], max_tokens: 32 };
    const answer = await client.chat.completions.create(body);
    expect(answer.model).toBe('openrouter.claude-haiku-4.5');
    expect((answer as unknown as { provider: string }).provider).toBe('openrouter');
    expect(answer.choices[0]?.message.content).toBe('Echo: seven eight');
    const streamed = await client.chat.completions.create({ ...body, stream: true });
    const models = new Set<string>();
    for await (const c of streamed) models.add(c.model);
    expect(models).toEqual(new Set(['openrouter.claude-haiku-4.5']));
    expect(anthropic.callsTo('POST', '/v1/messages')).toHaveLength(2);
    expect(usageCharges(g)).toHaveLength(2);
  });

  it('an unknown fallback model is a 400 invalid_routing, nothing held', async () => {
    const g = await gateway();
    const res = await fetch(`${g.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${g.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'claude-haiku-4-5', models: ['no-such-model'], messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('no-such-model');
    expect(g.memory.db.tasks.size).toBe(0);
  });
});
