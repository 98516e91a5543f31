import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnthropicAdapter, SandboxAdapter } from '@gengate/adapters';
import { createMemoryGengate, startFakeAnthropic, type FakeUpstream, type MemoryGengate } from '@gengate/testing';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIRouter } from '../src/http/openai/create-openai-router.js';

/**
 * Fuzzing the Anthropic routes of /v1 (messages, count_tokens, the model list) with random bodies and
 * headers from a seeded generator (so a failure replays): never a 5xx, every error in Anthropic's
 * envelope, and neither the caller's gengate key nor the upstream's Anthropic key in any answer.
 */
const ANTHROPIC_KEY = 'sk-ant-fake-fuzz-9876543210';
const ROUNDS = 400;
let memory: MemoryGengate;
let fake: FakeUpstream;
let server: Server;
let base: string;
let key: string;
/** Every log line the routes and the core wrote (level debug and up): no key may reach one. */
const logLines: string[] = [];

beforeAll(async () => {
  fake = await startFakeAnthropic();
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  memory = createMemoryGengate({
    adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 20 } }), new AnthropicAdapter({ apiKey: ANTHROPIC_KEY, baseURL: `${fake.url}/v1` })],
  });
  const app = express().use('/v1', createOpenAIRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger }));
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  key = (await memory.gengate.admin.createUser({ email: 'fuzz-messages@example.com', credits: 100_000 })).api_key;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await fake.close();
});

/** mulberry32: a small seeded generator. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fuzzing /v1/messages, /v1/messages/count_tokens and /v1/models', () => {
  it(`answers ${ROUNDS} random requests without a 5xx or a secret in an answer or a log line`, async () => {
    const rnd = random(20);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const scalars: readonly unknown[] = [null, true, 0, -1, 1.5, 2 ** 40, '', 'x', '\u0000', 'é'.repeat(50), [], {}];
    const models = ['sandbox.echo-chat', 'anthropic.claude-haiku-5-5', 'claude-haiku-4-5-20251001', 'claude-opus-9', 'sandbox.flux-image', '', 'x'.repeat(300)];
    const block = (): unknown =>
      pick<() => unknown>([
        () => ({ type: 'text', text: pick(['hi', '', 'SANDBOX_FAIL', 'a'.repeat(100)]), ...(rnd() < 0.3 ? { cache_control: pick([{ type: 'ephemeral' }, { type: 'x' }, null]) } : {}) }),
        () => ({ type: 'image', source: pick([{ type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }, { type: 'url', url: pick(['https://example.com/a.png', 'http://127.0.0.1/x', 'nope']) }, {}]) }),
        () => ({ type: 'tool_use', id: pick(['toolu_1', '']), name: 'f', input: pick([{}, { a: 1 }, 'str']) }),
        () => ({ type: 'tool_result', tool_use_id: pick(['toolu_1', 'unknown']), content: pick(['ok', [{ type: 'text', text: 'r' }], 5]) }),
        () => ({ type: 'thinking', thinking: 'hmm', signature: 'sig' }),
        () => ({ type: pick(['document', 'server_tool_use', 'x']) }),
        () => pick(scalars),
      ])();
    const message = (): unknown => ({ role: pick(['user', 'assistant', 'system', 'tool', 5]), content: rnd() < 0.4 ? pick(['hello', '', 7]) : Array.from({ length: Math.floor(rnd() * 3) }, block) });
    const body = (): unknown => {
      if (rnd() < 0.1) return pick(scalars);
      const b: Record<string, unknown> = {};
      if (rnd() < 0.95) b['model'] = pick(models);
      if (rnd() < 0.9) b['max_tokens'] = pick([1, 16, 64, 0, -3, 1e9, '16', 1.5]);
      if (rnd() < 0.95) b['messages'] = rnd() < 0.1 ? pick(scalars) : Array.from({ length: Math.floor(rnd() * 4) }, message);
      if (rnd() < 0.3) b['system'] = pick(['be nice', [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }], 3, [{ type: 'image' }]]);
      if (rnd() < 0.3) b['stream'] = pick([true, false, 'yes']);
      if (rnd() < 0.2) b['tools'] = pick([[{ name: 'f', input_schema: { type: 'object' } }], [{ name: 'bad name!' }], 'tools', [{ type: 'web_search_20250305', name: 'web_search' }]]);
      if (rnd() < 0.2) b['tool_choice'] = pick([{ type: 'auto' }, { type: 'any' }, { type: 'tool', name: 'f' }, { type: 'none' }, { type: 'other' }, 'auto']);
      if (rnd() < 0.2) b['thinking'] = pick([{ type: 'enabled', budget_tokens: 1024 }, { type: 'enabled', budget_tokens: 10 }, { type: 'adaptive' }, { type: 'disabled' }, { type: 'on' }]);
      if (rnd() < 0.15) b['temperature'] = pick([0, 0.5, 1, 2, -1, 'hot']);
      if (rnd() < 0.15) b['stop_sequences'] = pick([['STOP'], [], 'STOP', [1]]);
      if (rnd() < 0.15) b['metadata'] = pick([{ user_id: 'u' }, { user_id: 5 }, { other: 1 }]);
      if (rnd() < 0.1) b[pick(['unknown', 'context_management', 'output_config', 'container', 'mcp_servers'])] = pick([{}, { effort: 'high' }, 1]);
      return b;
    };
    const secrets = [key, ANTHROPIC_KEY];
    const statuses = new Map<number, number>();
    for (let i = 0; i < ROUNDS; i++) {
      const path = pick(['/v1/messages', '/v1/messages', '/v1/messages?beta=true', '/v1/messages/count_tokens', '/v1/models', '/v1/models/claude-sonnet-4-5', '/v1/messages/nope']);
      const method = path.startsWith('/v1/models') ? pick(['GET', 'GET', 'POST']) : pick(['POST', 'POST', 'POST', 'GET', 'PUT']);
      const headers: Record<string, string> = { 'anthropic-version': pick(['2023-06-01', '1999-01-01', '']) };
      const auth = rnd();
      if (auth < 0.6) headers['x-api-key'] = key;
      else if (auth < 0.8) headers['authorization'] = `Bearer ${key}`;
      else if (auth < 0.9) headers['x-api-key'] = pick(['', 'gg_wrong', `${key}x`]);
      if (rnd() < 0.9) headers['content-type'] = pick(['application/json', 'application/json', 'text/plain', 'application/json; charset=latin1']);
      if (rnd() < 0.2) headers['anthropic-beta'] = pick(['prompt-caching-2024-07-31', 'a,b,c', ' ']);
      const payload = method === 'GET' ? undefined : rnd() < 0.05 ? pick(['{', 'null', '[]', '"x"', '{"model":']) : JSON.stringify(body());
      const res = await fetch(`${base}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const where = `${method} ${path} ${payload ?? ''} -> ${res.status} ${text.slice(0, 300)}`;
      expect(res.status, where).toBeLessThan(500);
      for (const s of secrets) expect(text.includes(s), where).toBe(false);
      if (res.status >= 400) expect(JSON.parse(text), where).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
    }
    // The generator reaches both answers and refusals.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect([...statuses.keys()].some((s) => s >= 400)).toBe(true);
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) for (const s of secrets) expect(line.includes(s), line.slice(0, 300)).toBe(false);
  });
});
