import { describe, expect, it } from 'vitest';

export interface HttpApiConformanceOptions {
  /** Base URL of the API root, e.g. http://127.0.0.1:3000/api/v1 (read when the tests run). */
  readonly apiUrl: () => string;
  /** Creates a user with these credits and returns one of its API keys. */
  readonly createUser: (credits: number) => Promise<{ apiKey: string }>;
  /** Models to run: one per modality, and one that deterministically fails. */
  readonly models: { readonly chat: string; readonly image: string; readonly video: string; readonly failing: string };
  /** How long a task may take to end. Default 60 s. */
  readonly taskTimeoutMs?: number;
}

const TASK_KEYS = ['created_at', 'error_message', 'result_urls', 'status', 'task_id'];
const MODEL_KEYS = ['description', 'id', 'is_active', 'is_popular', 'modality', 'name', 'provider', 'tags'];

/**
 * A black-box suite for any server that implements the gengate interface: only HTTP, only the
 * documented shapes. An implementer runs it against their own deployment or test instance.
 */
export function describeHttpApiConformance(name: string, o: HttpApiConformanceOptions): void {
  const timeout = o.taskTimeoutMs ?? 60_000;
  const call = (key: string | null, path: string, init: RequestInit = {}) =>
    fetch(`${o.apiUrl()}${path}`, {
      ...init,
      headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), 'Content-Type': 'application/json', ...init.headers },
    });
  const json = async <T>(res: Response) => (await res.json()) as T;

  async function runToEnd(key: string, model: string, body: object) {
    const res = await call(key, `/run/${model}`, { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const accepted = await json<{ code: number; message: string; task_id: string; status: string }>(res);
    expect(Object.keys(accepted).sort()).toEqual(['code', 'message', 'status', 'task_id']);
    expect(accepted).toMatchObject({ code: 200, status: 'waiting' });
    const until = Date.now() + timeout;
    for (;;) {
      const task = await json<{ task_id: string; status: string; result_urls: string[]; error_message: string | null; created_at: string }>(
        await call(key, `/run/tasks/${accepted.task_id}`),
      );
      expect(Object.keys(task).sort()).toEqual(TASK_KEYS);
      if (task.status === 'success' || task.status === 'fail') return task;
      expect(['waiting', 'generating']).toContain(task.status);
      if (Date.now() > until) throw new Error(`task ${accepted.task_id} still ${task.status} after ${timeout} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  describe(`HTTP API conformance: ${name}`, () => {
    it('refuses missing and unknown keys with 401 and the error body', async () => {
      for (const key of [null, 'not-a-key']) {
        const res = await call(key, '/models');
        expect(res.status).toBe(401);
        const body = await json<{ code: number; message: string; error: { type: string } }>(res);
        expect(body.code).toBe(401);
        expect(typeof body.message).toBe('string');
      }
    });

    it('lists models with the paging envelope and defaults, filters by task (OR) and shows one model', async () => {
      const { apiKey } = await o.createUser(0);
      const list = await json<{ data: Record<string, unknown>[]; page: number; per_page: number; total: number; total_pages: number }>(
        await call(apiKey, '/models'),
      );
      expect(list).toMatchObject({ page: 1, per_page: 20 });
      expect(list.total_pages).toBe(Math.ceil(list.total / 20));
      for (const m of list.data) expect(Object.keys(m).sort()).toEqual(MODEL_KEYS);
      const videoOrChat = await json<{ data: { modality: string }[] }>(await call(apiKey, '/models?task=video&task=chat'));
      expect(videoOrChat.data.length).toBeGreaterThan(0);
      expect(videoOrChat.data.every((m) => m.modality === 'video' || m.modality === 'chat')).toBe(true);
      const one = await json<Record<string, unknown>>(await call(apiKey, `/models/${o.models.image}`));
      expect(one['id']).toBe(o.models.image);
      expect((await call(apiKey, '/models/no-such.model')).status).toBe(404);
      expect((await call(apiKey, '/models/popular')).status).toBe(200);
      expect((await call(apiKey, `/models/${o.models.image}/pricing`)).status).toBe(200);
      expect((await call(apiKey, '/pricing')).status).toBe(200);
    });

    it('runs a chat, an image and a video task to success with downloadable results, and charges them', { timeout: timeout * 3 }, async () => {
      const { apiKey } = await o.createUser(1_000);
      const runs: [string, object][] = [
        [o.models.chat, { prompt: 'Say hello', llm_params: { max_tokens: 16 } }],
        [o.models.image, { prompt: 'a red fox', image_params: { aspect_ratio: '1:1' } }],
        [o.models.video, { prompt: 'a paper boat', video_params: { duration: 5 } }],
      ];
      for (const [model, body] of runs) {
        const task = await runToEnd(apiKey, model, body);
        expect(task.status, model).toBe('success');
        expect(task.error_message).toBeNull();
        expect(task.result_urls.length).toBeGreaterThan(0);
        for (const url of task.result_urls) {
          const file = await fetch(url);
          expect(file.status).toBe(200);
          expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(0);
        }
      }
      const tx = await json<{ data: { credits: number; amount: number; payment_method: string; status: string }[]; total: number; page: number; per_page: number }>(
        await call(apiKey, '/billing/transactions'),
      );
      expect(tx).toMatchObject({ page: 1, per_page: 20 });
      const usage = tx.data.filter((t) => t.payment_method === 'usage');
      expect(usage).toHaveLength(3);
      for (const u of usage) {
        expect(u.credits).toBeLessThan(0);
        expect(u.amount).toBeGreaterThanOrEqual(0);
        expect(u.status).toBe('completed');
      }
    });

    it('ends a failing task in fail with an error message and charges nothing', { timeout: timeout * 2 }, async () => {
      const { apiKey } = await o.createUser(100);
      const before = await json<{ credits: number }>(await call(apiKey, '/billing/balance'));
      const task = await runToEnd(apiKey, o.models.failing, { prompt: 'fail' });
      expect(task.status).toBe('fail');
      expect(task.error_message?.length).toBeGreaterThan(0);
      expect(task.result_urls).toEqual([]);
      expect(await json<{ credits: number }>(await call(apiKey, '/billing/balance'))).toMatchObject({ credits: before.credits });
    });

    it('refuses out-of-range parameters with 400 and creates nothing', async () => {
      const { apiKey } = await o.createUser(100);
      for (const body of [{ prompt: 'x', llm_params: { temperature: 3 } }, { prompt: 'x', llm_params: { top_p: 2 } }]) {
        const res = await call(apiKey, `/run/${o.models.chat}`, { method: 'POST', body: JSON.stringify(body) });
        expect(res.status).toBe(400);
      }
      const res = await call(apiKey, `/run/${o.models.video}`, { method: 'POST', body: JSON.stringify({ prompt: 'x', video_params: { aspect_ratio: '21:9' } }) });
      expect(res.status).toBe(400);
      const tx = await json<{ total: number }>(await call(apiKey, '/billing/transactions'));
      expect(tx.total).toBe(1); // only the starting credits
    });

    it('creates, lists (masked), updates and revokes an API key', async () => {
      const { apiKey } = await o.createUser(0);
      const created = await json<{ id: string; name: string; key: string; created_at: string }>(
        await call(apiKey, '/api-keys', { method: 'POST', body: JSON.stringify({ name: 'conformance' }) }),
      );
      expect(Object.keys(created).sort()).toEqual(['created_at', 'id', 'key', 'name']);
      const listed = await (await call(apiKey, '/api-keys')).text();
      expect(listed).not.toContain(created.key);
      expect((await call(apiKey, `/api-keys/${created.id}`, { method: 'PUT', body: JSON.stringify({ name: 'renamed' }) })).status).toBe(200);
      expect((await call(apiKey, `/api-keys/${created.id}`, { method: 'DELETE' })).status).toBe(200);
      expect((await call(created.key, '/models')).status).toBe(401);
    });

    it('shows the balance, starts a top-up and manages balance alerts', async () => {
      const { apiKey } = await o.createUser(10);
      const balance = await json<{ credits: number; currency: string }>(await call(apiKey, '/billing/balance'));
      expect(balance).toMatchObject({ credits: 10, currency: 'USD' });
      expect((await call(apiKey, '/billing/topup', { method: 'POST', body: JSON.stringify({ amount: 10 }) })).status).toBe(200);
      expect((await call(apiKey, '/billing/topup', { method: 'POST', body: JSON.stringify({ amount: -1 }) })).status).toBe(400);
      const alert = await json<{ id: string; threshold: number }>(await call(apiKey, '/billing/alerts', { method: 'POST', body: JSON.stringify({ threshold: 5 }) }));
      expect(alert.threshold).toBe(5);
      expect((await call(apiKey, `/billing/alerts/${alert.id}`, { method: 'DELETE' })).status).toBe(200);
    });
  });
}
