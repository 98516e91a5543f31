import { TOKENS } from '@gengate/core';
import { openAIFaults } from '@gengate/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedStream, startResponsesApp, UPSTREAM_KEY, type ResponsesApp } from './support/responses-app.js';
import { waitFor } from './support/spawn-server.js';

/**
 * What POST /v1/responses refuses and how it fails: a bad request changes nothing (no task, no hold), a
 * Codex CLI request is accepted, an upstream failure is OpenAI's error before the stream and
 * `response.failed` inside it (checked by the testing kit's validator), and fuzzed bodies are never a 5xx
 * nor echo a key.
 */
let app: ResponsesApp;

beforeAll(async () => {
  app = await startResponsesApp();
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const post = (key: string, body: unknown) =>
  fetch(`${app.base}/v1/responses`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const get = async <T>(path: string, key: string): Promise<T> => (await (await fetch(`${app.base}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as T;

describe('refusals', () => {
  it('refuses bad requests with OpenAI error envelopes, creating no task and holding nothing', async () => {
    const { key } = await app.user(10);
    const before = await get<{ held_credits: number; available_credits: number }>('/billing/balance', key);
    expect(before).toMatchObject({ held_credits: 0, available_credits: 10 });
    const cases: [unknown, number, string][] = [
      [{ model: 'sandbox.echo-chat', input: 'x', junk: 1 }, 400, 'junk'],
      [{ model: 'sandbox.echo-chat' }, 400, 'input'],
      [{ model: 'sandbox.echo-chat', input: [{ type: 'function_call_output', call_id: 'nope', output: 'x' }] }, 400, 'input[0].call_id'],
      [{ model: 'sandbox.echo-chat', input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{not json' }] }, 400, 'input[0].arguments'],
      [{ model: 'sandbox.echo-chat', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://127.0.0.1/x.png' }] }] }, 400, 'input[0]'],
      [{ model: 'sandbox.echo-chat', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }] }, 400, 'input[0]'],
      [{ model: 'sandbox.echo-chat', input: 'x', background: true }, 400, 'background'],
      [{ model: 'sandbox.echo-chat', input: 'x', tools: [{ type: 'function', name: 'bad name!' }] }, 400, 'tools.0'],
      [{ model: 'sandbox.echo-chat', input: 'x', previous_response_id: 'resp_00000000-0000-4000-8000-000000000000' }, 404, 'previous_response_id'],
      [{ model: 'no-such-model', input: 'x' }, 404, 'model'],
      [{ model: 'sandbox.pixel-image', input: 'x' }, 400, 'model'],
      ['{"model": ', 400, ''],
    ];
    for (const [body, status, param] of cases) {
      const res = await post(key, body);
      const answer = (await res.json()) as { error: { message: string; type: string; param: string | null } };
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(answer.error.message, JSON.stringify(body)).toEqual(expect.any(String));
      if (param) expect(answer.error.param ?? '', JSON.stringify(body)).toContain(param);
    }
    expect((await get<{ data: unknown[] }>('/run/tasks', key)).data).toEqual([]);
    expect(await get<{ held_credits: number; available_credits: number }>('/billing/balance', key)).toEqual(before);
  });
});

describe('Codex CLI', () => {
  it("accepts the body Codex sends (hosted and custom tools, reasoning, include, prompt_cache_key, client_metadata, store: false) and streams an answer it accepts", async () => {
    const { key } = await app.user();
    const res = await post(key, {
      model: 'openai.gpt-4o-mini',
      instructions: 'You are Codex.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>...</permissions>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'say hi' }] },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
      ],
      tools: [
        { type: 'function', name: 'shell', description: 'Runs a command', strict: false, parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] } },
        { type: 'custom', name: 'apply_patch', description: 'Applies a patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: x' } },
        { type: 'local_shell' },
        { type: 'web_search' },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'medium', summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      client_metadata: { 'x-codex-turn': 1 },
    });
    expect(res.status).toBe(200);
    const events = checkedStream(await res.text());
    const done = events.at(-1) as { type: string; response: { output: { type: string; name?: string; arguments?: string; encrypted_content?: string }[] } };
    expect(done.type).toBe('response.completed');
    // OpenAI reasons first (Codex included the encrypted reasoning, which it sends back next turn; the fake
    // numbers it by the one reasoning item it was given); then it calls the first function it is offered.
    expect(done.response.output[0]).toMatchObject({ type: 'reasoning', encrypted_content: 'enc_1' });
    const call = done.response.output[1];
    expect([call?.type, call?.name, JSON.parse(call?.arguments ?? 'null')]).toEqual(['function_call', 'shell', { command: [expect.any(String)] }]);
    // An OpenAI model is called on OpenAI's Responses API: the function tools, and Codex's reasoning item whole.
    const sent = app.fake.calls.at(-1)?.body as { tools?: { name: string }[]; input: { type?: string }[]; store: boolean; include: string[] };
    expect(sent.tools?.map((t) => t.name)).toEqual(['shell']);
    expect(sent.input.find((i) => i.type === 'reasoning')).toEqual({ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' });
    expect(sent).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
  });
});

describe('upstream failures', () => {
  it('answers an upstream failure before any output as an HTTP error, charging nothing and failing the task', async () => {
    const { key } = await app.user();
    const client = new OpenAI({ baseURL: `${app.base}/v1`, apiKey: key, maxRetries: 0 });
    for (const stream of [false, true]) {
      app.fake.failNext(openAIFaults.contentPolicy(), { match: (c) => c.path === '/v1/responses' });
      const error = await client.responses.create({ model: 'openai.gpt-4o-mini', input: 'x', stream }).catch((e: unknown) => e);
      expect(error, String(stream)).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBeLessThan(600);
    }
    const tasks = await get<{ data: { status: string }[] }>('/run/tasks', key);
    expect(tasks.data.map((t) => t.status)).toEqual(['fail', 'fail']);
    const tx = await get<{ data: { payment_method: string }[] }>('/billing/transactions', key);
    expect(tx.data.filter((t) => t.payment_method === 'usage')).toEqual([]);
  });

  it('ends a stream whose upstream breaks after output with response.failed, never a clean end', async () => {
    const { key } = await app.user();
    // OpenAI's Responses stream: created, in_progress, the message added, its part added, then text deltas.
    app.fake.failNext({ kind: 'cut-stream', events: 6, then: 'drop' }, { match: (c) => c.path === '/v1/responses' });
    const res = await post(key, { model: 'openai.gpt-4o-mini', input: 'a reasonably long sentence to be cut short', stream: true });
    expect(res.status).toBe(200);
    const events = checkedStream(await res.text());
    const last = events.at(-1) as { type: string; response: { status: string; error: { code: string; message: string } } };
    expect(last.type).toBe('response.failed');
    expect(last.response.error.message).toMatch(/provider failed/);
    expect(events.map((e) => e['type'])).not.toContain('response.completed');
  });
});

describe('revocation', () => {
  it('ends the open stream of a key revoked mid-answer with response.failed, charging what was produced', async () => {
    const { key, userId } = await app.user();
    const keys = await get<{ data?: { id: string }[] } | { id: string }[]>('/api-keys', key);
    const keyId = (Array.isArray(keys) ? keys : (keys.data ?? []))[0]?.id ?? '';
    // The upstream sends its first events, then stays open sending nothing: only the revocation can end the stream.
    app.fake.failNext({ kind: 'cut-stream', events: 6, then: 'stall' }, { match: (c) => c.path === '/v1/responses' });
    const res = await post(key, { model: 'openai.gpt-4o-mini', input: 'keep talking', stream: true });
    expect(res.status).toBe(200);
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    let body = '';
    while (reader && !body.includes('response.output_text.delta')) {
      const next = await reader.read();
      if (next.done) break;
      body += next.value;
    }
    const revoked = await fetch(`${app.base}/api/v1/api-keys/${keyId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
    expect(revoked.status).toBe(200);
    for (let next = await reader?.read(); next && !next.done; next = await reader?.read()) body += next.value;
    const events = checkedStream(body);
    const last = events.at(-1) as { type: string; response: { error: { code: string; message: string } } };
    expect(last.type).toBe('response.failed');
    expect(last.response.error).toEqual({ code: 'invalid_api_key', message: expect.stringMatching(/revoked/) });
    const ledger = app.gengate.container.get(TOKENS.Stores).ledger;
    const charge = await waitFor(async () => (await ledger.listTransactions(userId, 1, 10)).items.find((t) => t.paymentMethod === 'usage'), { timeoutMs: 5_000, intervalMs: 20, what: 'the charge of the revoked stream' });
    expect(charge.creditsMicro).toBeLessThan(0);
  });
});

describe('fuzzing /v1/responses', () => {
  it('answers random bodies with 4xx envelopes or valid answers, never a 5xx, and never shows a key (answers and log lines)', async () => {
    const logsBefore = app.logLines.length;
    const { key, userId } = await app.user(5);
    let seed = 20;
    const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const values: unknown[] = [
      null, true, 0, -1, 1e308, 'x', '', [], {}, [1, 'a'], 'sandbox.echo-chat', 'openai.gpt-4o-mini', '\u0000', 'a'.repeat(3000),
      [{ role: 'user', content: 'hi' }], [{ type: 'function_call_output', call_id: 'c', output: 'x' }], [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }],
      [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] }], { format: { type: 'json_schema', name: 'x', schema: {} } },
      [{ type: 'function', name: 'f' }], { type: 'function', name: 'f' }, { effort: 'high' }, `resp_${userId}`, 'resp_x',
    ];
    const fields = ['model', 'input', 'instructions', 'stream', 'tools', 'tool_choice', 'text', 'max_output_tokens', 'reasoning', 'store', 'previous_response_id', 'temperature', 'include', 'metadata', 'junk'];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 150; i++) {
      const body: Record<string, unknown> = { model: 'sandbox.echo-chat', input: 'hi', max_output_tokens: 4 };
      for (let j = 0; j < 1 + Math.floor(rnd() * 3); j++) body[pick(fields)] = pick(values);
      const method = pick(['POST', 'POST', 'POST', 'GET', 'DELETE']);
      const path = method === 'POST' ? '/v1/responses' : pick(['/v1/responses/resp_x', `/v1/responses/resp_${userId}`, '/v1/responses/%ZZ', '/v1/responses']);
      const res = await fetch(`${app.base}${path}`, {
        method,
        headers: { Authorization: pick([`Bearer ${key}`, `Bearer ${key}`, `Bearer ${key}`, 'Bearer', '']), 'Content-Type': pick(['application/json', 'application/json', 'text/plain']) },
        ...(method === 'POST' ? { body: rnd() < 0.05 ? '{"input": ' : JSON.stringify(body) } : {}),
      });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const text = await res.text();
      expect(text).not.toContain(key);
      expect(text).not.toContain(UPSTREAM_KEY);
      if (res.status >= 400) expect(JSON.parse(text), text).toHaveProperty('error.message');
      else if (res.headers.get('content-type')?.startsWith('text/event-stream')) checkedStream(text);
    }
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    const logs = app.logLines.slice(logsBefore);
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) {
      expect(line).not.toContain(key);
      expect(line).not.toContain(UPSTREAM_KEY);
    }
  }, 120_000);
});
