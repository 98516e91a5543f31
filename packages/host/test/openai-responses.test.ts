import OpenAI from 'openai';
import { parseResponsesSse, validateResponsesStream } from '@gengate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedStream, startResponsesApp, type ResponsesApp } from './support/responses-app.js';

/**
 * POST /v1/responses, GET/DELETE /v1/responses/{id} and previous_response_id, driven by the official
 * `openai` client's `responses` (v7, unmodified) on the sandbox and on gengate's OpenAI adapter through the
 * fake OpenAI server. Every stream is checked by the testing kit's Responses validator
 * (https://platform.openai.com/docs/api-reference/responses-streaming).
 */
let app: ResponsesApp;
let key: string;
let client: OpenAI;
/** The sandbox, OpenAI and, across dialects, Anthropic (each through gengate's adapter and the provider's fake). */
const MODELS = ['sandbox.echo-chat', 'openai.gpt-4o-mini', 'anthropic.claude-haiku-5-5'] as const;

beforeAll(async () => {
  app = await startResponsesApp();
  key = (await app.user(1000)).key;
  client = new OpenAI({ baseURL: `${app.base}/v1`, apiKey: key, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const api = async <T>(path: string, secret = key): Promise<T> => (await (await fetch(`${app.base}/api/v1${path}`, { headers: { Authorization: `Bearer ${secret}` } })).json()) as T;
const taskIdOf = (responseId: string) => responseId.replace(/^resp_/, '');

/** Streams with the client, checking every event it yields against the reference. */
async function streamed(params: OpenAI.Responses.ResponseCreateParamsStreaming): Promise<OpenAI.Responses.ResponseStreamEvent[]> {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const e of await client.responses.create(params)) events.push(e);
  expect(validateResponsesStream(events)).toEqual([]);
  return events;
}

const tools: OpenAI.Responses.Tool[] = [
  { type: 'function', name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false },
];

describe('POST /v1/responses with the openai client', () => {
  it('creates a response (non-streamed) on the sandbox, OpenAI and Anthropic, recorded as a charged gengate task', async () => {
    for (const model of MODELS) {
      const r = await client.responses.create({ model, input: 'hello responses', instructions: 'Be brief.', max_output_tokens: 40 });
      expect(r.object, model).toBe('response');
      expect(r.status, model).toBe('completed');
      expect(r.model).toBe(model);
      expect(r.output_text, model).toMatch(/hello responses/);
      expect(r.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
      expect(r.usage?.total_tokens).toBe((r.usage?.input_tokens ?? 0) + (r.usage?.output_tokens ?? 0));
      expect(r.usage?.input_tokens_details.cached_tokens).toBe(0);
      // The task: the answer's text, then the stored conversation (store defaults to true).
      const task = await api<{ status: string; result_urls: string[] }>(`/run/tasks/${taskIdOf(r.id)}`);
      expect(task.status).toBe('success');
      expect(task.result_urls, model).toHaveLength(2);
    }
    const charges = (await api<{ data: { payment_method: string; credits: number }[] }>('/billing/transactions?per_page=100')).data.filter((t) => t.payment_method === 'usage');
    expect(charges).toHaveLength(MODELS.length);
    expect(charges.every((c) => c.credits < 0)).toBe(true);
  });

  it('streams typed, numbered events from response.created to response.completed with usage, and the text of the non-streamed answer', async () => {
    for (const model of MODELS) {
      const events = await streamed({ model, input: [{ role: 'user', content: [{ type: 'input_text', text: 'stream this please' }] }], max_output_tokens: 40, stream: true });
      const types = events.map((e) => e.type);
      expect(types.slice(0, 4), model).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
      expect(types.slice(-4), model).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
      const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
      expect(text, model).toMatch(/stream this please/);
      const done = events.at(-1);
      expect(done?.type === 'response.completed' ? [done.response.output_text, done.response.usage?.output_tokens ?? 0] : null).toEqual([text, expect.any(Number)]);
    }
  });

  it("reports the upstream's cached input tokens in usage.input_tokens_details.cached_tokens", async () => {
    // The fake answers once as OpenAI's Responses API does for a prompt whose first 1,024 tokens were cached
    // (https://platform.openai.com/docs/guides/prompt-caching: usage.input_tokens_details.cached_tokens).
    app.fake.failNext(
      {
        kind: 'status',
        status: 200,
        body: {
          id: 'resp_cached',
          object: 'response',
          created_at: 1,
          status: 'completed',
          model: 'gpt-4o-mini',
          output: [{ id: 'msg_cached', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'cached answer', annotations: [] }] }],
          usage: { input_tokens: 1500, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1502 },
        },
      },
      { match: (c) => c.path === '/v1/responses' },
    );
    const r = await client.responses.create({ model: 'openai.gpt-4o-mini', input: 'a long shared prefix' });
    expect(r.output_text).toBe('cached answer');
    expect(r.usage).toMatchObject({ input_tokens: 1500, output_tokens: 2, total_tokens: 1502, input_tokens_details: { cached_tokens: 1024 } });
  });

  it('answers the truncated response as incomplete (max_output_tokens), streamed and not', async () => {
    const r = await client.responses.create({ model: 'sandbox.echo-chat', input: 'a long answer please', max_output_tokens: 3 });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    const events = await streamed({ model: 'sandbox.echo-chat', input: 'a long answer please', max_output_tokens: 3, stream: true });
    expect(events.at(-1)?.type).toBe('response.incomplete');
  });

  it('round-trips a function call, streamed and not, by items and by previous_response_id, on the sandbox, OpenAI and Anthropic', async () => {
    for (const model of MODELS) {
      const first = await client.responses.create({ model, input: 'Paris', tools, tool_choice: 'required' });
      const call = first.output.find((o) => o.type === 'function_call');
      expect(call?.type === 'function_call' ? [call.name, JSON.parse(call.arguments)] : null, model).toEqual(['get_weather', { city: 'Paris' }]);
      if (call?.type !== 'function_call') return;
      const answer: OpenAI.Responses.ResponseInputItem = { type: 'function_call_output', call_id: call.call_id, output: '{"temperature": 21}' };
      const byItems = await client.responses.create({ model, tools, input: [{ role: 'user', content: 'Paris' }, { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments }, answer] });
      expect(byItems.output_text, model).toMatch(/21/);
      const byPrevious = await client.responses.create({ model, tools, previous_response_id: first.id, input: [answer] });
      expect(byPrevious.output_text, model).toMatch(/21/);
      expect(byPrevious.previous_response_id).toBe(first.id);
      const events = await streamed({ model, input: 'Lyon', tools, tool_choice: { type: 'function', name: 'get_weather' }, stream: true });
      const types = events.map((e) => e.type);
      expect(types, model).toContain('response.function_call_arguments.delta');
      expect(types, model).toContain('response.function_call_arguments.done');
      const argsDone = events.find((e) => e.type === 'response.function_call_arguments.done');
      expect(argsDone?.type === 'response.function_call_arguments.done' ? JSON.parse(argsDone.arguments) : null).toEqual({ city: 'Lyon' });
    }
  });

  it('answers a json_schema text format with a value of the schema', async () => {
    for (const model of MODELS) {
      const r = await client.responses.create({
        model,
        input: 'A city',
        text: { format: { type: 'json_schema', name: 'city', schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false }, strict: true } },
      });
      expect(JSON.parse(r.output_text), model).toEqual({ name: expect.any(String) });
    }
  });

  it('takes developer and system messages, assistant turns and image parts', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    for (const model of MODELS) {
      const r = await client.responses.create({
        model,
        input: [
          { role: 'developer', content: 'Answer in English.' },
          { role: 'user', content: 'first turn' },
          { type: 'message', role: 'assistant', id: 'msg_earlier', status: 'completed', content: [{ type: 'output_text', text: 'first answer', annotations: [] }] },
          { role: 'user', content: [{ type: 'input_text', text: 'what is this image' }, { type: 'input_image', image_url: png, detail: 'auto' }] },
        ],
      });
      expect(r.status, model).toBe('completed');
      expect(r.output_text, model).toMatch(/what is this image/);
    }
    // An OpenAI model is called on OpenAI's Responses API (the last call: OpenAI's, as MODELS orders them).
    const sent = app.fake.calls.filter((c) => c.path === '/v1/responses').at(-1)?.body as { input: { role: string }[] };
    expect(sent.input.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });
});

describe('long conversations', () => {
  it('serves a conversation past the run limits on text (as a coding agent grows one), recording it cut and holding it whole', async () => {
    const long = 'word '.repeat(20_000);
    for (const model of MODELS) {
      const r = await client.responses.create({ model, instructions: long, input: [{ role: 'user', content: long }, { role: 'user', content: 'and the question' }], max_output_tokens: 20 });
      expect(r.status === 'completed' || r.status === 'incomplete', model).toBe(true);
      expect(r.usage?.input_tokens ?? 0, model).toBeGreaterThan(10_000);
    }
  });
});

describe('stored responses', () => {
  it('GET answers a stored response, DELETE removes it, another user and store: false find nothing', async () => {
    const r = await client.responses.create({ model: 'sandbox.echo-chat', input: 'keep me', metadata: { topic: 'test' } });
    const got = await client.responses.retrieve(r.id);
    expect(got).toMatchObject({ id: r.id, status: 'completed', output_text: r.output_text, metadata: { topic: 'test' }, store: true });
    const other = new OpenAI({ baseURL: `${app.base}/v1`, apiKey: (await app.user()).key, maxRetries: 0 });
    expect(await other.responses.retrieve(r.id).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await other.responses.delete(r.id).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    const input = await client.responses.inputItems.list(r.id);
    expect(input.data.map((i) => (i.type === 'message' ? i.role : i.type))).toEqual(['user']);
    const deleted = await fetch(`${app.base}/v1/responses/${r.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
    expect(await deleted.json()).toEqual({ id: r.id, object: 'response', deleted: true });
    expect(await client.responses.retrieve(r.id).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    const unstored = await client.responses.create({ model: 'sandbox.echo-chat', input: 'forget me', store: false });
    expect(unstored).toMatchObject({ store: false });
    expect(await client.responses.retrieve(unstored.id).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await client.responses.create({ model: 'sandbox.echo-chat', input: 'more', previous_response_id: unstored.id }).catch((e: unknown) => e);
    expect(continued).toBeInstanceOf(OpenAI.NotFoundError);
    expect((continued as InstanceType<typeof OpenAI.NotFoundError>).param).toBe('previous_response_id');
    expect(await client.responses.retrieve('resp_not-a-uuid').catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('stores a streamed response too, and continues it with its input and output prepended', async () => {
    const events = await streamed({ model: 'openai.gpt-4o-mini', input: 'remember the word marmalade', stream: true });
    const id = events[0]?.type === 'response.created' ? events[0].response.id : '';
    const got = await client.responses.retrieve(id);
    expect(got.output_text).toMatch(/marmalade/);
    await client.responses.create({ model: 'openai.gpt-4o-mini', input: 'what was the word?', previous_response_id: id });
    const sent = app.fake.calls.at(-1)?.body as { input: { role: string; content: unknown }[] };
    expect(sent.input.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(sent.input[0]?.content)).toMatch(/marmalade/);
  });
});

describe('Idempotency-Key', () => {
  it('answers a repeated non-streamed call with the same key from its stored response, charged once; another body is a 409', async () => {
    const { key: own } = await app.user();
    const send = (body: object) =>
      fetch(`${app.base}/v1/responses`, { method: 'POST', headers: { Authorization: `Bearer ${own}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'resp-once-1' }, body: JSON.stringify(body) });
    const body = { model: 'sandbox.echo-chat', input: 'once only', max_output_tokens: 5 };
    const first = (await (await send(body)).json()) as { id: string; output_text: string };
    const again = await send(body);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ id: first.id, output_text: first.output_text });
    const other = await send({ ...body, max_output_tokens: 6 });
    expect(other.status).toBe(409);
    const tx = await api<{ data: { payment_method: string }[] }>('/billing/transactions', own);
    expect(tx.data.filter((t) => t.payment_method === 'usage')).toHaveLength(1);
  });
});

describe('the raw stream', () => {
  it('names each event with an event: line matching its type, numbers them from 0, and ends without [DONE]', async () => {
    const res = await fetch(`${app.base}/v1/responses`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox.echo-chat', input: 'raw', max_output_tokens: 5, stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const body = await res.text();
    const events = checkedStream(body);
    expect(events.map((e) => e['sequence_number'])).toEqual(events.map((_, i) => i));
    expect(parseResponsesSse(body).problems).toEqual([]);
    expect(body).not.toMatch(/\[DONE\]/);
  });
});
