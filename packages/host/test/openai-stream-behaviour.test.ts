import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, MemoryBlobStore, TOKENS, type Gengate } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import express from 'express';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';
import { createOpenAIRouter } from '../src/http/openai/create-openai-router.js';
import { ManualPaymentProcessor } from '../src/payments/manual-processor.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { openPool } from './support/open-pool.js';
import { waitFor } from './support/spawn-server.js';

/**
 * The /v1 stream on PostgreSQL stores, in process (no job queue: inline calls need none): the bytes on the
 * wire (a golden transcript, per https://platform.openai.com/docs/api-reference/chat-streaming), keep-alive
 * comments while the first token is slow, a revoked key ending an open stream, Idempotency-Key on a
 * non-streamed call, and fuzzed bodies and headers never answered with a 5xx.
 */
let db: TestDatabase;
let closePool: () => Promise<void>;
let server: Server;
let base: string;
let gengate: Gengate;
let n = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  const { pool, close } = openPool(db.url, 20);
  closePool = close;
  await runMigrations(pool, DEFAULT_SCHEMA);
  const { stores, unitOfWork, taskIntake, taskCompletion } = createPgStores(pool, null, { schema: DEFAULT_SCHEMA });
  const blobStore = new MemoryBlobStore();
  gengate = createGengate({
    // 1.2 s per chat answer: a slow first token (the first word comes after latency / (words + 1)).
    adapters: [new SandboxAdapter({ latencyMs: { chat: 1_200, image: 5, video: 30 } })],
    stores,
    unitOfWork,
    taskIntake,
    taskCompletion,
    blobStore,
    resultUrls: { urlFor: (k) => `http://gengate.test/api/v1/files/${k}` },
    paymentProcessor: new ManualPaymentProcessor(),
    // One running chat per user: a second concurrent call is refused, never queued.
    scheduling: { maxRunningPerUser: { chat: 1, image: 4, video: 4 } },
  });
  const logger = pino({ level: 'silent' });
  const app = express()
    .use('/api/v1', createGengateRouter({ gengate, blobStore, logger }))
    .use('/v1', createOpenAIRouter({ gengate, blobStore, logger, keepAliveMs: 60_000, revocationCheckMs: 100 }))
    .use('/ka/v1', createOpenAIRouter({ gengate, blobStore, logger, keepAliveMs: 20 }));
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => server?.close(() => r()));
  await closePool?.();
  await db?.drop();
});

let lastUserId = '';
async function user(credits = 100): Promise<string> {
  const u = await gengate.admin.createUser({ email: `v1-${++n}@example.com`, credits });
  lastUserId = u.user_id;
  return u.api_key;
}

/** The user's usage charge, once the stream has settled (it settles as it ends, after the response). */
async function waitForCharge(userId: string): Promise<{ creditsMicro: number }> {
  const ledger = gengate.container.get(TOKENS.Stores).ledger;
  return waitFor(async () => (await ledger.listTransactions(userId, 1, 10)).items.find((t) => t.paymentMethod === 'usage'), {
    timeoutMs: 5_000,
    intervalMs: 20,
    what: 'the usage charge of the revoked stream',
  });
}

const post = (path: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('the stream on the wire', () => {
  it('matches the golden transcript byte for byte (id and created normalized)', async () => {
    const key = await user();
    const res = await post('/v1/chat/completions', key, { model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const raw = await res.text();
    const normalized = raw.replace(/chatcmpl-[0-9a-f-]{36}/g, 'chatcmpl-ID').replace(/"created":\d+/g, '"created":0');
    const chunk = (choices: string, usage = 'null') => `data: {"id":"chatcmpl-ID","object":"chat.completion.chunk","created":0,"model":"sandbox.echo-chat","provider":"sandbox","system_fingerprint":null,"choices":${choices},"usage":${usage}}\n\n`;
    const delta = (d: string, finish = 'null') => chunk(`[{"index":0,"delta":${d},"logprobs":null,"finish_reason":${finish}}]`);
    expect(normalized).toBe(
      [
        delta('{"role":"assistant","content":"","refusal":null}'),
        delta('{"content":"Sandbox"}'),
        delta('{"content":" reply"}'),
        delta('{"content":" to:"}'),
        delta('{"content":" hi"}'),
        delta('{}', '"length"'),
        chunk('[]', '{"prompt_tokens":1,"completion_tokens":4,"total_tokens":5}'),
        'data: [DONE]\n\n',
      ].join(''),
    );
  });

  it('sends keep-alive comments while waiting for a slow token', async () => {
    const key = await user();
    const res = await post('/ka/v1/chat/completions', key, { model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'slow' }], max_tokens: 3, stream: true });
    const raw = await res.text();
    const firstContent = raw.indexOf('"content":"Sandbox"');
    expect(raw.indexOf(': keep-alive\n\n')).toBeGreaterThan(0);
    expect(raw.indexOf(': keep-alive\n\n')).toBeLessThan(firstContent);
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('revocation and idempotency', () => {
  it('ends an open stream of a revoked key with an error event before the answer is complete, charging what was produced', async () => {
    const key = await user();
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: key, maxRetries: 0 });
    const keys = (await (await fetch(`${base}/api/v1/api-keys`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data?: { id: string }[] } | { id: string }[];
    const keyId = (Array.isArray(keys) ? keys : (keys.data ?? []))[0]?.id ?? '';
    const stream = await client.chat.completions.create({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'long answer please' }], max_tokens: 24, stream: true });
    let chunks = 0;
    const error = await (async () => {
      try {
        for await (const _ of stream) {
          if (++chunks === 2) {
            const del = await fetch(`${base}/api/v1/api-keys/${keyId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
            expect(del.status).toBe(200);
          }
        }
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toMatch(/revoked/);
    // The answer would have been 24 chunks: the stream was cut by the revocation, not by its end.
    expect(chunks).toBeLessThan(24);
    // The key is gone, so the ledger is read through the store: one usage charge, for the words produced.
    const userId = lastUserId;
    const tx = await waitForCharge(userId);
    expect(tx.creditsMicro).toBeLessThan(0);
  });

  it('answers a repeated non-streamed call with the same Idempotency-Key from its task, charged once', async () => {
    const key = await user();
    const body = { model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'once only' }], max_tokens: 5 };
    const first = await post('/v1/chat/completions', key, body, { 'Idempotency-Key': 'abc-1' });
    const second = await post('/v1/chat/completions', key, body, { 'Idempotency-Key': 'abc-1' });
    const a = (await first.json()) as { id: string; choices: { message: { content: string } }[] };
    const b = (await second.json()) as { id: string; choices: { message: { content: string } }[] };
    expect(second.status).toBe(200);
    expect(b.id).toBe(a.id);
    expect(b.choices[0]?.message.content).toBe(a.choices[0]?.message.content);
    const other = await post('/v1/chat/completions', key, { ...body, max_tokens: 6 }, { 'Idempotency-Key': 'abc-1' });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const tx = (await (await fetch(`${base}/api/v1/billing/transactions`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: { payment_method: string }[] };
    expect(tx.data.filter((t) => t.payment_method === 'usage')).toHaveLength(1);
  });
});

describe('admission', () => {
  it("refuses a call beyond the user's running chat slots with the SDK's RateLimitError, holding nothing", async () => {
    const key = await user();
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: key, maxRetries: 0 });
    const open = await client.chat.completions.create({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'first' }], max_tokens: 8, stream: true });
    const iterator = open[Symbol.asyncIterator]();
    await iterator.next(); // the role chunk: the first call holds its slot
    const refused = await client.chat.completions.create({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'second' }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('rate_limit_exceeded');
    for (let next = await iterator.next(); !next.done; next = await iterator.next());
    const tasks = (await (await fetch(`${base}/api/v1/run/tasks`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: unknown[] };
    expect(tasks.data).toHaveLength(1);
  });
});

describe('fuzzing /v1', () => {
  it('answers random bodies and headers with 4xx envelopes, never a 5xx', async () => {
    const key = await user(1);
    let seed = 42;
    const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const values: unknown[] = [null, true, 0, -1, 1e308, 'x', '', [], {}, [1, 'a'], { role: 'user' }, 'sandbox.echo-chat', { type: 'json_schema' }, '\u0000', 'a'.repeat(5000)];
    const fields = ['model', 'messages', 'stream', 'stream_options', 'temperature', 'top_p', 'max_tokens', 'tools', 'tool_choice', 'response_format', 'stop', 'seed', 'n', 'user', 'junk'];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 200; i++) {
      const body: Record<string, unknown> = { model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'hi' }] };
      for (let j = 0; j < 1 + Math.floor(rnd() * 3); j++) body[pick(fields)] = pick(values);
      const raw = rnd() < 0.1 ? '{"model": ' : JSON.stringify(body);
      const headers: Record<string, string> = { 'Content-Type': pick(['application/json', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data']) };
      if (rnd() < 0.2) headers['Idempotency-Key'] = pick(['', 'k', 'ü', 'x'.repeat(300)]);
      const auth = pick([`Bearer ${key}`, `Bearer ${key}`, 'Bearer', 'Basic abc', '']);
      const path = pick(['/v1/chat/completions', '/v1/chat/completions', '/v1/models', '/v1/models/%ZZ', '/v1/nope']);
      const res = await fetch(`${base}${path}`, { method: pick(['POST', 'POST', 'GET', 'PUT']), headers: { ...headers, ...(auth ? { Authorization: auth } : {}) }, ...(rnd() < 0.9 ? { body: raw } : {}) }).catch(() => null);
      if (!res) continue;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const text = await res.text();
      if (res.status >= 400) expect(JSON.parse(text), text).toHaveProperty('error.message');
    }
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
  }, 60_000);
});
