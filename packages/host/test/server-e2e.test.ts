import { createTestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/** The standalone host as a user runs it: `gengate serve` on PostgreSQL, the CLI, the sandbox, real files. */
describe('standalone server end to end', () => {
  let db: { url: string; drop(): Promise<void> };
  let server: SpawnedServer;
  let env: NodeJS.ProcessEnv;
  let key: string;

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers },
    });

  async function submit(model: string, body: unknown): Promise<string> {
    const res = await api(`/run/${model}`, { method: 'POST', body: JSON.stringify(body) });
    const json = (await res.json()) as { code: number; task_id: string; status: string; message: string };
    expect(res.status).toBe(200);
    expect(json).toMatchObject({ code: 200, status: 'waiting' });
    return json.task_id;
  }

  async function finished(taskId: string) {
    return waitFor(
      async () => {
        const t = (await (await api(`/run/tasks/${taskId}`)).json()) as { status: string; result_urls: string[]; error_message: string | null };
        return t.status === 'success' || t.status === 'fail' ? t : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `task ${taskId} to end` },
    );
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '300' };
    server = await spawnServer(env);
    const out = await runCli(['users', 'create', '--email', 'e2e@example.com', '--credits', '1000'], env);
    const created = JSON.parse(out) as { user_id: string; key: string; api_key: string };
    // `key`, as POST /api-keys answers; `api_key` is its deprecated alias for one release.
    expect(Object.keys(created).sort()).toEqual(['api_key', 'key', 'user_id']);
    expect(created.api_key).toBe(created.key);
    key = created.key;
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('takes a chat, an image and a video task from waiting to success with downloadable files of the right type', async () => {
    const chat = await submit('sandbox.echo-chat', { prompt: 'Say hello', llm_params: { temperature: 0.7, max_tokens: 16 } });
    const image = await submit('sandbox.pixel-image', { prompt: 'a red fox', image_params: { aspect_ratio: '16:9', seed: 42 } });
    const video = await submit('sandbox.motion-video', { prompt: 'a paper boat', video_params: { duration: 5, resolution: '720p' } });
    const expected: Record<string, { type: string; magic: (b: Buffer) => boolean }> = {
      [chat]: { type: 'text/plain', magic: (b) => b.toString('utf8').startsWith('Sandbox reply to: Say hello') },
      [image]: { type: 'image/png', magic: (b) => b.subarray(1, 4).toString('latin1') === 'PNG' },
      [video]: { type: 'image/gif', magic: (b) => b.subarray(0, 6).toString('latin1') === 'GIF89a' },
    };
    for (const [taskId, want] of Object.entries(expected)) {
      const task = await finished(taskId);
      expect(task.status, JSON.stringify(task)).toBe('success');
      expect(task.error_message).toBeNull();
      expect(task.result_urls.length).toBe(1);
      const url = task.result_urls[0] ?? '';
      expect(url.startsWith(`${server.url}/api/v1/files/${taskId}/`)).toBe(true);
      const file = await fetch(url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toContain(want.type);
      expect(file.headers.get('x-content-type-options')).toBe('nosniff');
      if (want.type === 'text/plain') expect(file.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(want.magic(Buffer.from(await file.arrayBuffer()))).toBe(true);
    }
    const tx = (await (await api('/billing/transactions')).json()) as { data: { payment_method: string; credits: number; status: string }[] };
    expect(tx.data.filter((t) => t.payment_method === 'usage').length).toBe(3);
    expect(tx.data.every((t) => t.status === 'completed')).toBe(true);
  });

  it('ends a failing task in fail with an error message, no result and no charge', async () => {
    const before = (await (await api('/billing/balance')).json()) as { credits: number };
    const taskId = await submit('sandbox.always-fail', {});
    const task = await finished(taskId);
    expect(task.status).toBe('fail');
    expect(task.error_message?.length).toBeGreaterThan(0);
    expect(task.result_urls).toEqual([]);
    const after = (await (await api('/billing/balance')).json()) as { credits: number; held_credits: number };
    expect(after.credits).toBe(before.credits);
    expect(after.held_credits).toBe(0);
  });

  it('sells credits through the manual processor: pending top-up, completed once by the operator CLI', async () => {
    const before = ((await (await api('/billing/balance')).json()) as { credits: number }).credits;
    const topup = (await (await api('/billing/topup', { method: 'POST', body: JSON.stringify({ amount: 5 }) })).json()) as {
      transaction_id: string;
      status: string;
      checkout_url: string | null;
    };
    expect(topup).toMatchObject({ status: 'pending', checkout_url: null });
    expect(((await (await api('/billing/balance')).json()) as { credits: number }).credits).toBe(before);
    const done = JSON.parse(await runCli(['topups', 'complete', topup.transaction_id], env)) as { status: string };
    expect(done).toEqual({ transaction_id: topup.transaction_id, status: 'completed' });
    expect(((await (await api('/billing/balance')).json()) as { credits: number }).credits).toBe(before + 500);
    await expect(runCli(['topups', 'complete', topup.transaction_id], env)).rejects.toThrow(/conflict/);
    expect(((await (await api('/billing/balance')).json()) as { credits: number }).credits).toBe(before + 500);
  });

  it('logs JSON lines, each line of a request carrying its request id', () => {
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; reqId?: string; req?: { id?: string } });
    const accepted = lines.filter((l) => l.msg === 'task accepted');
    expect(accepted.length).toBeGreaterThanOrEqual(4);
    for (const l of accepted) expect(l.reqId ?? l.req?.id).toMatch(/^[0-9a-f-]{36}$/);
    const completed = lines.filter((l) => l.msg === 'request completed');
    expect(completed.length).toBeGreaterThan(0);
    for (const l of completed) expect(l.req?.id ?? l.reqId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves its OpenAPI document without a key and an API reference page at /docs', async () => {
    const res = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; servers: { url: string }[] };
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers).toEqual([{ url: '/api/v1', description: 'This server' }]);
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/docs/swagger-ui-bundle.js');
  });

  it('writes no API key secret to its log', async () => {
    const logged = await server.loggedOutput();
    expect(logged).not.toContain(key);
    expect(logged).not.toContain(key.slice(8));
  });
});
