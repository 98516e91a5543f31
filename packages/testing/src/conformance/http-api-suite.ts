import { createGengateClient, unwrap, type GengateClient, type GengateClientOptions, type RunRequest, type Task } from '@gengate/client';
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
  /** A fetch for the client to use instead of globalThis.fetch. */
  readonly fetch?: GengateClientOptions['fetch'];
}

const TASK_KEYS = ['created_at', 'error_message', 'result_urls', 'status', 'task_id'];
const MODEL_KEYS = ['description', 'id', 'is_active', 'is_popular', 'modality', 'name', 'provider', 'tags'];

/**
 * A black-box suite for any server that implements the gengate interface: only HTTP, only the
 * documented shapes. It speaks through @gengate/client, whose types are generated from the same
 * OpenAPI document the server is checked against, so the document, the client and this suite cannot
 * drift apart. An implementer runs it against their own deployment or test instance.
 */
export function describeHttpApiConformance(name: string, o: HttpApiConformanceOptions): void {
  const timeout = o.taskTimeoutMs ?? 60_000;
  const clientFor = (apiKey: string | null): GengateClient =>
    createGengateClient({ baseUrl: o.apiUrl(), ...(apiKey ? { apiKey } : {}), ...(o.fetch ? { fetch: o.fetch } : {}) });
  const userClient = async (credits: number) => clientFor((await o.createUser(credits)).apiKey);

  async function runToEnd(client: GengateClient, model: string, body: RunRequest): Promise<Task> {
    const submitted = await client.POST('/run/{model_id}', { params: { path: { model_id: model } }, body });
    expect(submitted.response.status).toBe(200);
    const accepted = unwrap(submitted);
    expect(Object.keys(accepted).sort()).toEqual(['code', 'message', 'status', 'task_id']);
    expect(accepted).toMatchObject({ code: 200, status: 'waiting' });
    const until = Date.now() + timeout;
    for (;;) {
      const task = unwrap(await client.GET('/run/tasks/{task_id}', { params: { path: { task_id: accepted.task_id } } }));
      expect(Object.keys(task).filter((k) => k !== 'progress').sort()).toEqual(TASK_KEYS);
      if (task.status === 'success' || task.status === 'fail') return task;
      expect(['waiting', 'generating']).toContain(task.status);
      if (Date.now() > until) throw new Error(`task ${accepted.task_id} still ${task.status} after ${timeout} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  describe(`HTTP API conformance: ${name}`, () => {
    it('refuses missing and unknown keys with 401 and the error body', async () => {
      for (const key of [null, 'not-a-key']) {
        const { error, response } = await clientFor(key).GET('/models');
        expect(response.status).toBe(401);
        expect(error?.code).toBe(401);
        expect(typeof error?.message).toBe('string');
      }
    });

    it('lists models with the paging envelope and defaults, filters by task (OR) and shows one model', async () => {
      const client = await userClient(0);
      const list = unwrap(await client.GET('/models'));
      expect(list).toMatchObject({ page: 1, per_page: 20 });
      expect(list.total_pages).toBe(Math.ceil(list.total / 20));
      // A routed model (issue 21: one id over several provider routes) adds its routes and price range to the interface's keys.
      for (const m of list.data) expect(Object.keys(m).sort()).toEqual(m.provider === 'routed' ? [...MODEL_KEYS, 'price_range', 'routes'].sort() : MODEL_KEYS);
      const videoOrChat = unwrap(await client.GET('/models', { params: { query: { task: ['video', 'chat'] } } }));
      expect(videoOrChat.data.length).toBeGreaterThan(0);
      expect(videoOrChat.data.every((m) => m.modality === 'video' || m.modality === 'chat')).toBe(true);
      const one = unwrap(await client.GET('/models/{model_id}', { params: { path: { model_id: o.models.image } } }));
      expect(one.id).toBe(o.models.image);
      expect((await client.GET('/models/{model_id}', { params: { path: { model_id: 'no-such.model' } } })).response.status).toBe(404);
      expect((await client.GET('/models/popular')).response.status).toBe(200);
      expect((await client.GET('/models/{model_id}/pricing', { params: { path: { model_id: o.models.image } } })).response.status).toBe(200);
      expect((await client.GET('/pricing')).response.status).toBe(200);
    });

    it('runs a chat, an image and a video task to success with downloadable results, and charges them', { timeout: timeout * 3 }, async () => {
      const client = await userClient(1_000);
      const runs: [string, RunRequest][] = [
        [o.models.chat, { prompt: 'Say hello', llm_params: { max_tokens: 16 } }],
        [o.models.image, { prompt: 'a red fox', image_params: { aspect_ratio: '1:1' } }],
        [o.models.video, { prompt: 'a paper boat', video_params: { duration: 5 } }],
      ];
      for (const [model, body] of runs) {
        const task = await runToEnd(client, model, body);
        expect(task.status, model).toBe('success');
        expect(task.error_message).toBeNull();
        expect(task.result_urls.length).toBeGreaterThan(0);
        for (const url of task.result_urls) {
          const file = await (o.fetch ?? fetch)(new Request(url));
          expect(file.status).toBe(200);
          expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(0);
        }
      }
      const tx = unwrap(await client.GET('/billing/transactions'));
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
      const client = await userClient(100);
      const before = unwrap(await client.GET('/billing/balance'));
      const task = await runToEnd(client, o.models.failing, { prompt: 'fail' });
      expect(task.status).toBe('fail');
      expect(task.error_message?.length).toBeGreaterThan(0);
      expect(task.result_urls).toEqual([]);
      expect(unwrap(await client.GET('/billing/balance'))).toMatchObject({ credits: before.credits });
    });

    it('refuses out-of-range parameters with 400 and creates nothing', async () => {
      const client = await userClient(100);
      const run = (model: string, body: RunRequest) => client.POST('/run/{model_id}', { params: { path: { model_id: model } }, body });
      for (const body of [{ prompt: 'x', llm_params: { temperature: 3 } }, { prompt: 'x', llm_params: { top_p: 2 } }]) {
        expect((await run(o.models.chat, body)).response.status).toBe(400);
      }
      // Outside the document's enum on purpose: the typed client would not let it through otherwise.
      const wide = { prompt: 'x', video_params: { aspect_ratio: '21:9' } } as unknown as RunRequest;
      expect((await run(o.models.video, wide)).response.status).toBe(400);
      const tx = unwrap(await client.GET('/billing/transactions'));
      expect(tx.total).toBe(1); // only the starting credits
    });

    it('creates, lists (masked), updates and revokes an API key', async () => {
      const client = await userClient(0);
      const created = unwrap(await client.POST('/api-keys', { body: { name: 'conformance' } }));
      expect(Object.keys(created).sort()).toEqual(['created_at', 'id', 'key', 'name']);
      const listed = await client.GET('/api-keys', { parseAs: 'text' });
      expect(listed.data).not.toContain(created.key);
      const path = { params: { path: { id: created.id } } };
      expect((await client.PUT('/api-keys/{id}', { ...path, body: { name: 'renamed' } })).response.status).toBe(200);
      expect((await client.DELETE('/api-keys/{id}', path)).response.status).toBe(200);
      expect((await clientFor(created.key).GET('/models')).response.status).toBe(401);
    });

    it('shows the balance, starts a top-up and manages balance alerts', async () => {
      const client = await userClient(10);
      expect(unwrap(await client.GET('/billing/balance'))).toMatchObject({ credits: 10, currency: 'USD' });
      expect((await client.POST('/billing/topup', { body: { amount: 10 } })).response.status).toBe(200);
      expect((await client.POST('/billing/topup', { body: { amount: -1 } })).response.status).toBe(400);
      const alert = unwrap(await client.POST('/billing/alerts', { body: { threshold: 5 } }));
      expect(alert.threshold).toBe(5);
      expect((await client.DELETE('/billing/alerts/{id}', { params: { path: { id: alert.id } } })).response.status).toBe(200);
    });
  });
}
