import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderFakes, type ProviderFakes } from './support/provider-fakes.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/**
 * The OpenAI-compatible surface (/v1) of the standalone host (`gengate serve`), driven by the official
 * `openai` client (v7, unmodified) against the sandbox and the provider fakes. Streams go to the server
 * directly (the contract proxy buffers whole bodies).
 * Shapes: https://platform.openai.com/docs/api-reference/chat/create and
 * https://platform.openai.com/docs/api-reference/chat-streaming.
 */
let db: TestDatabase;
let fakes: ProviderFakes;
let server: SpawnedServer;
let env: NodeJS.ProcessEnv;
let key: string;
let client: OpenAI;

async function newUser(email: string, credits: number): Promise<string> {
  return (JSON.parse(await runCli(['users', 'create', '--email', email, '--credits', String(credits)], env)) as { api_key: string }).api_key;
}

beforeAll(async () => {
  db = await createTestDatabase();
  fakes = await startProviderFakes();
  env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '60', OPENAI_MODEL_ALIASES: 'house-chat=sandbox.echo-chat', ...fakes.env };
  server = await spawnServer(env);
  key = await newUser('openai-compat@example.com', 1000);
  client = new OpenAI({ baseURL: `${server.directUrl}/v1`, apiKey: key, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await fakes?.close();
  await db?.drop();
});

const api = (path: string, init: RequestInit = {}, secret = key) =>
  fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', ...init.headers } });

interface Transaction {
  id: string;
  credits: number;
  payment_method: string;
  created_at: string;
}

async function usageCharges(secret = key): Promise<Transaction[]> {
  const page = (await (await api('/billing/transactions?per_page=100', {}, secret)).json()) as { data: Transaction[] };
  return page.data.filter((t) => t.payment_method === 'usage');
}

/** The charge of the same request on /api/v1/run (the worker's path), for the ledger comparison. */
async function chargeOnRun(model: string, body: object): Promise<number> {
  const res = await api(`/run/${model}`, { method: 'POST', body: JSON.stringify(body) });
  const { task_id } = (await res.json()) as { task_id: string };
  await waitFor(
    async () => {
      const t = (await (await api(`/run/tasks/${task_id}`)).json()) as { status: string };
      return t.status === 'success' ? t : null;
    },
    { timeoutMs: 30_000, intervalMs: 50, what: 'the /api/v1/run task' },
  );
  return (await usageCharges())[0]?.credits ?? NaN;
}

const taskIdOf = (id: string) => id.replace(/^chatcmpl-/, '');

describe('GET /v1/models', () => {
  it('lists the catalog in OpenAI list shape with gengate extensions, and finds a model by id, bare upstream name and alias', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(['sandbox.echo-chat', 'openai.gpt-4o-mini', 'anthropic.claude-haiku-5-5']));
    const bare = await client.models.retrieve('gpt-4o-mini');
    expect(bare).toMatchObject({ id: 'openai.gpt-4o-mini', object: 'model', owned_by: 'openai' });
    expect((bare as unknown as { gengate: { modality: string } }).gengate.modality).toBe('chat');
    expect((await client.models.retrieve('house-chat')).id).toBe('sandbox.echo-chat');
  });
});

describe('POST /v1/chat/completions on the sandbox', () => {
  it('answers non-streamed, records a task with its text, and charges exactly what /api/v1/run charges for the same request', async () => {
    const answer = await client.chat.completions.create({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'hello ledger world' }], max_tokens: 12 });
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices[0]?.message.content).toBe('Sandbox reply to: hello ledger world The sandbox model runs offline and');
    expect(answer.choices[0]?.finish_reason).toBe('length');
    expect(answer.usage).toEqual({ prompt_tokens: 3, completion_tokens: 12, total_tokens: 15 });
    const taskId = taskIdOf(answer.id);
    const task = (await (await api(`/run/tasks/${taskId}`)).json()) as { status: string; result_urls: string[] };
    expect(task.status).toBe('success');
    expect(await (await fetch(task.result_urls[0] ?? '')).text()).toBe(answer.choices[0]?.message.content);
    const listed = (await (await api('/run/tasks')).json()) as { data: { task_id: string }[] };
    expect(listed.data.map((t) => t.task_id)).toContain(taskId);
    const v1Charge = (await usageCharges())[0]?.credits;
    const runCharge = await chargeOnRun('sandbox.echo-chat', { prompt: 'hello ledger world', llm_params: { max_tokens: 12 } });
    expect(v1Charge).toBeLessThan(0);
    expect(v1Charge).toBe(runCharge);
  });

  it('streams the role chunk, word deltas and finish_reason; with include_usage a last chunk with empty choices carries the usage', async () => {
    for (const includeUsage of [false, true]) {
      const stream = await client.chat.completions.create({
        model: 'sandbox.echo-chat',
        messages: [{ role: 'user', content: 'stream me' }],
        max_tokens: 6,
        stream: true,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      });
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const c of stream) chunks.push(c);
      expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      expect(text).toBe('Sandbox reply to: stream me The');
      const finish = chunks.find((c) => c.choices[0]?.finish_reason);
      expect(finish?.choices[0]?.finish_reason).toBe('length');
      const last = chunks.at(-1);
      if (includeUsage) {
        expect(last?.choices).toEqual([]);
        expect(last?.usage).toEqual({ prompt_tokens: 2, completion_tokens: 6, total_tokens: 8 });
      } else {
        expect(chunks.every((c) => c.usage === undefined || c.usage === null)).toBe(true);
      }
    }
  });

  it('round-trips a tool call (non-streamed and streamed) and answers a json_schema response format, on the sandbox, OpenAI, Anthropic and Google', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
    ];
    for (const model of ['sandbox.echo-chat', 'openai.gpt-4o-mini', 'anthropic.claude-haiku-5-5', 'google.gemini-3.5-flash']) {
      const first = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Paris' }], tools });
      const call = first.choices[0]?.message.tool_calls?.[0];
      expect(first.choices[0]?.finish_reason, model).toBe('tool_calls');
      expect(call?.type === 'function' ? [call.function.name, JSON.parse(call.function.arguments)] : null, model).toEqual(['get_weather', { city: 'Paris' }]);
      const second = await client.chat.completions.create({
        model,
        tools,
        messages: [
          { role: 'user', content: 'Paris' },
          { role: 'assistant', content: null, tool_calls: first.choices[0]?.message.tool_calls ?? [] },
          { role: 'tool', tool_call_id: call?.id ?? '', content: 'sunny' },
        ],
      });
      expect(second.choices[0]?.message.content, model).toMatch(/sunny/);
      const streamed = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Rome' }], tools, stream: true });
      let name = '';
      let args = '';
      let finish: string | null = null;
      for await (const c of streamed) {
        const d = c.choices[0]?.delta.tool_calls?.[0];
        name += d?.function?.name ?? '';
        args += d?.function?.arguments ?? '';
        finish = c.choices[0]?.finish_reason ?? finish;
      }
      expect([name, JSON.parse(args), finish], model).toEqual(['get_weather', { city: 'Rome' }, 'tool_calls']);
      const structured = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Ada' }],
        response_format: { type: 'json_schema', json_schema: { name: 'person', schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } },
      });
      expect(JSON.parse(structured.choices[0]?.message.content ?? ''), model).toEqual({ name: 'Ada' });
    }
  });
});

describe('POST /v1/chat/completions on provider fakes', () => {
  it('answers through OpenAI, Anthropic and Google, streamed and not, charged as on /api/v1/run', async () => {
    for (const model of ['openai.gpt-4o-mini', 'anthropic.claude-haiku-5-5', 'google.gemini-3.5-flash']) {
      const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: `Hello from ${model}` }], max_tokens: 32 });
      expect(answer.choices[0]?.message.content, model).toBe(`Echo: Hello from ${model}`);
      const v1Charge = (await usageCharges())[0]?.credits;
      expect(v1Charge, model).toBe(await chargeOnRun(model, { prompt: `Hello from ${model}`, llm_params: { max_tokens: 32 } }));
      const streamed = await client.chat.completions.create({ model, messages: [{ role: 'user', content: `Streamed from ${model}` }], max_tokens: 32, stream: true });
      let text = '';
      for await (const c of streamed) text += c.choices[0]?.delta.content ?? '';
      expect(text, model).toBe(`Echo: Streamed from ${model}`);
      expect((await usageCharges())[0]?.credits, model).toBe(await chargeOnRun(model, { prompt: `Streamed from ${model}`, llm_params: { max_tokens: 32 } }));
    }
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello streamed' }], max_tokens: 32, stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Echo: Hello streamed');
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 3 });
    const upstream = fakes.openai.calls.at(-1)?.body as { stream?: boolean; stream_options?: { include_usage?: boolean } };
    expect(upstream).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });
});

describe('POST /v1/images/generations', () => {
  it('answers b64_json by default and gengate result URLs when asked, charged as on /api/v1/run', async () => {
    const b64 = await client.images.generate({ model: 'sandbox.pixel-image', prompt: 'a red square', size: '64x48', n: 2 });
    expect(b64.data).toHaveLength(2);
    const png = Buffer.from(b64.data?.[0]?.b64_json ?? '', 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([64, 48]);
    const v1Charge = (await usageCharges())[0]?.credits;
    expect(v1Charge).toBe(await chargeOnRun('sandbox.pixel-image', { prompt: 'a red square', image_params: { width: 64, height: 48, n: 2 } }));
    const byUrl = await client.images.generate({ model: 'sandbox.pixel-image', prompt: 'a blue square', response_format: 'url' });
    const url = byUrl.data?.[0]?.url ?? '';
    expect(url.startsWith(`${server.url}/api/v1/files/`)).toBe(true);
    const file = await fetch(url);
    expect(file.headers.get('content-type')).toContain('image/png');
    const openai = await client.images.generate({ model: 'openai.gpt-image-2', prompt: 'a fox', size: '1024x1536', quality: 'low' });
    expect(Buffer.from(openai.data?.[0]?.b64_json ?? '', 'base64').readUInt32BE(20)).toBe(1536);
    expect(fakes.openai.calls.at(-1)?.body).toMatchObject({ model: 'gpt-image-2', prompt: 'a fox', quality: 'low' });
  });
});

describe('video jobs at /v1/videos (https://platform.openai.com/docs/api-reference/videos)', () => {
  it('creates a job (multipart), retrieves it to completed, lists it, downloads it whole and by range, then deletes it', async () => {
    const created = await client.videos.create({ model: 'sandbox.motion-video', prompt: 'a bouncing ball', seconds: '5' as never, size: '1280x720' });
    // The create answers the job as it stands when read back: queued, or already in_progress when the worker
    // (1-2 ms from submission to the adapter now) took it first, as OpenAI's own create may answer.
    expect(created).toMatchObject({ object: 'video', seconds: '5', size: '1280x720', model: 'sandbox.motion-video' });
    expect(['queued', 'in_progress']).toContain(created.status);
    const done = await waitFor(
      async () => {
        const v = await client.videos.retrieve(created.id);
        return v.status === 'completed' || v.status === 'failed' ? v : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the video job to complete' },
    );
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    const task = (await (await api(`/run/tasks/${created.id}`)).json()) as { status: string };
    expect(task.status).toBe('success');
    const listed: string[] = [];
    for await (const v of client.videos.list()) listed.push(v.id);
    expect(listed).toContain(created.id);
    const whole = Buffer.from(await (await client.videos.downloadContent(created.id)).arrayBuffer());
    expect(whole.subarray(0, 3).toString()).toBe('GIF');
    const part = await fetch(`${server.directUrl}/v1/videos/${created.id}/content`, { headers: { Authorization: `Bearer ${key}`, Range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-9/${whole.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.subarray(0, 10));
    expect(await client.videos.delete(created.id)).toMatchObject({ id: created.id, deleted: true });
    await expect(client.videos.downloadContent(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('errors on /v1 raise the SDK typed errors', () => {
  it('wrong key -> AuthenticationError, unknown model -> NotFoundError, exhausted credits and rate limit -> RateLimitError', async () => {
    const wrong = new OpenAI({ baseURL: `${server.directUrl}/v1`, apiKey: 'gg_wrong', maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const poor = new OpenAI({ baseURL: `${server.directUrl}/v1`, apiKey: await newUser('poor@example.com', 0), maxRetries: 0 });
    const refused = await poor.chat.completions.create({ model: 'openai.gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('insufficient_quota');
    const created = (await (await api('/api-keys', { method: 'POST', body: JSON.stringify({ name: 'limited', rate_limit_per_minute: 1 }) })).json()) as { key: string };
    const limited = new OpenAI({ baseURL: `${server.directUrl}/v1`, apiKey: created.key, maxRetries: 0 });
    const ok = await limited.models.list().withResponse();
    expect(ok.response.headers.get('x-ratelimit-limit-requests')).toBe('1');
    const limitedError = await limited.models.list().catch((e: unknown) => e);
    expect(limitedError).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limitedError as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('interrupted streams', () => {
  it('a stream cut by the client after 3 chunks is charged for what was produced, less than the whole answer', async () => {
    const body = { model: 'sandbox.echo-chat', messages: [{ role: 'user' as const, content: 'cut me short please' }], max_tokens: 24 };
    const full = await client.chat.completions.create(body);
    const fullCharge = (await usageCharges())[0]?.credits ?? 0;
    const controller = new AbortController();
    const stream = await client.chat.completions.create({ ...body, stream: true }, { signal: controller.signal });
    let seen = 0;
    let id = '';
    try {
      for await (const c of stream) {
        id = c.id;
        if (++seen === 3) controller.abort();
      }
    } catch {
      // the client's own abort
    }
    expect(seen).toBe(3);
    const ended = await waitFor(
      async () => {
        const t = (await (await api(`/run/tasks/${taskIdOf(id)}`)).json()) as { status: string };
        return t.status === 'success' || t.status === 'fail' ? t : null;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the cut stream to settle' },
    );
    expect(ended.status).toBe('success');
    const cutCharge = (await usageCharges())[0]?.credits ?? 0;
    expect(full.usage?.completion_tokens).toBe(24);
    expect(cutCharge).toBeLessThan(0);
    expect(Math.abs(cutCharge)).toBeLessThan(Math.abs(fullCharge));
  });

  it('an upstream dropping mid-stream ends with an error event (not a clean end), charged for what was produced', async () => {
    const stream = await client.chat.completions.create({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'drop [sandbox:drop]' }], stream: true });
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
    expect(String((error as Error).message)).toMatch(/dropped the stream/);
    expect(texts.join('')).toBe('Sandbox reply to:');
    const charge = await waitFor(
      async () => {
        const t = (await (await api(`/run/tasks/${taskIdOf(id)}`)).json()) as { status: string };
        return t.status === 'success' ? (await usageCharges())[0] : null;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the broken stream to settle' },
    );
    expect(charge?.credits).toBeLessThan(0);
  });
});

