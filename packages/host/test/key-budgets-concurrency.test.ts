import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/server/start-server.js';
import { startTwoApiHosts, type BurstResult, type TwoApiHosts } from './support/two-api-hosts.js';

/**
 * Issue 22's acceptance for a key's own controls, across two processes: two hosts (each its own pool,
 * key cache and container) on one database, API role only (no worker: every accepted task stays
 * waiting with its hold). A sandbox pixel image is quoted 2 credits. The clock is injected into both
 * hosts and starts on Thursday 2026-11-26 10:00 UTC.
 */
describe('per-key spend controls under concurrency, across two processes', () => {
  let h: TwoApiHosts;
  let a: RunningServer;
  let b: RunningServer;
  let rootKey: string;
  const call = (...args: Parameters<TwoApiHosts['call']>) => h.call(...args);
  const count = (sql: string, values: unknown[] = []) => h.count(sql, values);
  const heldMicro = () => h.heldMicro();
  const newKey = (body: object) => h.newKey(body);
  const submit = (server: RunningServer, key: string, model = 'sandbox.pixel-image') =>
    call(server, key, `/run/${model}`, { method: 'POST', body: JSON.stringify({ prompt: 'budget', image_params: { width: 64, height: 64 } }) });
  /** Answers of `n` submissions fired at once, alternating between the two hosts: status and error type. */
  const burst = (key: string, n: number): Promise<BurstResult> => h.burst(n, (server) => submit(server, key));

  beforeAll(async () => {
    h = await startTwoApiHosts({ email: 'budgets@example.com', credits: 100_000, startAt: '2026-11-26T10:00:00.000Z' });
    ({ a, b, rootKey } = h);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('200 concurrent submissions on a key whose daily budget covers exactly 50 quotes: 50 accepted, 150 key_budget_exceeded; the next UTC day accepts again', { timeout: 120_000 }, async () => {
    const { id, key } = await newKey({ spend_limit: 100, budget_period: 'day' });
    const heldBefore = await heldMicro();
    const result = await burst(key, 200);
    expect(result).toEqual({ accepted: 50, refused: { '402 key_budget_exceeded': 150 } });
    expect(await count(`select count(*) as n from gengate.tasks where api_key_id = $1`, [id])).toBe(50);
    expect((await heldMicro()) - heldBefore).toBe(100_000_000);

    // The refusal names the limit and when it resets.
    const refused = await submit(b, key);
    expect(refused.status).toBe(402);
    const body = (await refused.json()) as { message: string; error: { type: string; resets_at: string } };
    expect(body.error).toMatchObject({ type: 'key_budget_exceeded', resets_at: '2026-11-27T00:00:00.000Z' });
    expect(body.message).toContain('spent 100 of its 100 credit spend_limit');

    const listed = (await (await call(b, rootKey, '/api-keys')).json()) as { data: { id: string; spent: number; remaining: number; resets_at: string; concurrent_tasks: number }[] };
    expect(listed.data.find((k) => k.id === id)).toMatchObject({ spent: 100, remaining: 0, resets_at: '2026-11-27T00:00:00.000Z', concurrent_tasks: 50 });

    // 00:00 UTC the next day: a new period, in both processes.
    h.setNow('2026-11-27T00:00:00.000Z');
    expect((await submit(b, key)).status).toBe(200);
    expect((await submit(a, key)).status).toBe(200);
    const after = (await (await call(a, rootKey, '/api-keys')).json()) as { data: { id: string; spent: number; resets_at: string }[] };
    expect(after.data.find((k) => k.id === id)).toMatchObject({ spent: 4, resets_at: '2026-11-28T00:00:00.000Z' });
  });

  it('the concurrency cap holds exactly under 100 concurrent submissions', { timeout: 120_000 }, async () => {
    const { id, key } = await newKey({ max_concurrent_tasks: 7 });
    const result = await burst(key, 100);
    expect(result).toEqual({ accepted: 7, refused: { '429 key_concurrency_exceeded': 93 } });
    expect(await count(`select count(*) as n from gengate.tasks where api_key_id = $1 and status in ('waiting', 'generating')`, [id])).toBe(7);
  });

  it("a model outside the key's allow-lists is refused and changes nothing, even through a process whose key cache is stale", { timeout: 60_000 }, async () => {
    const { id, key } = await newKey({ allowed_modalities: ['chat'] });
    const tasksBefore = await count(`select count(*) as n from gengate.tasks`);
    const heldBefore = await heldMicro();
    const jobsBefore = await count(`select count(*) as n from pgboss.job`);
    const refused = await submit(a, key);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('modality_not_allowed_for_key');

    // Warm B's cache with the key allowing image, then narrow it through A: B's next submission is refused
    // by the check in the holding transaction (its cached record still allows the model).
    expect((await call(a, rootKey, `/api-keys/${id}`, { method: 'PUT', body: JSON.stringify({ allowed_modalities: null }) })).status).toBe(200);
    const warm = await submit(b, key);
    expect(warm.status).toBe(200);
    expect((await call(a, rootKey, `/api-keys/${id}`, { method: 'PUT', body: JSON.stringify({ allowed_models: ['sandbox.echo-chat'] }) })).status).toBe(200);
    const stale = await submit(b, key);
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as { error: { type: string } }).error.type).toBe('model_not_allowed_for_key');
    const providers = await call(a, rootKey, `/api-keys/${id}`, { method: 'PUT', body: JSON.stringify({ allowed_models: null, allowed_providers: ['openai'] }) });
    expect(providers.status).toBe(200);
    expect(((await (await submit(a, key)).json()) as { error: { type: string } }).error.type).toBe('provider_not_allowed_for_key');

    // Only the one accepted task wrote anything: one task, its hold, and a job only if it was admitted
    // to a running slot (the user's four image slots are taken by the earlier tests' waiting tasks).
    expect(await count(`select count(*) as n from gengate.tasks`)).toBe(tasksBefore + 1);
    expect((await heldMicro()) - heldBefore).toBe(2_000_000);
    const admitted = await count(`select count(*) as n from gengate.tasks where api_key_id = $1 and admitted`, [id]);
    expect(await count(`select count(*) as n from pgboss.job`)).toBe(jobsBefore + admitted);
  });

  it('bad controls are a 400 naming the field, and write nothing', async () => {
    const keysBefore = await count(`select count(*) as n from gengate.api_keys`);
    for (const [body, param] of [
      [{ spend_limit: -1 }, 'spend_limit'],
      [{ spend_limit: 1.0000001 }, 'spend_limit'],
      [{ budget_period: 'year' }, 'budget_period'],
      [{ soft_threshold_percent: 150 }, 'soft_threshold_percent'],
      [{ allowed_modalities: ['audio'] }, 'allowed_modalities.0'],
      [{ allowed_models: [] }, 'allowed_models'],
      [{ max_concurrent_tasks: 0 }, 'max_concurrent_tasks'],
    ] as const) {
      const res = await call(a, rootKey, '/api-keys', { method: 'POST', body: JSON.stringify({ name: 'bad', ...body }) });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
    expect(await count(`select count(*) as n from gengate.api_keys`)).toBe(keysBefore);
  });
});
