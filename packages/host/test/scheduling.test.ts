import { GatewayError, MemoryCallLimiter, type AdapterCall, type GenerationResult } from '@gengate/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgCallLimiter } from '../src/limits/pg-call-limiter.js';
import { ended, FakeAdapter, IMAGE_PRICE, MODELS, newCaller, openWorkerHarness, waitFor, type HostProcess, type WorkerHarness } from './support/worker-harness.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';

/** Records the order in which tasks reach the upstream: the order of events the fairness test reads. */
class StartOrderAdapter extends FakeAdapter {
  readonly starts: string[] = [];

  override async generate(call: AdapterCall): Promise<GenerationResult> {
    this.starts.push(call.taskId);
    return super.generate(call);
  }
}

const FAIR = { maxRunningPerUser: { chat: 8, image: 3, video: 8 }, maxQueuedPerUser: 1_000, maxAttempts: 4 };

describe('fair scheduling between users', () => {
  const adapter = new StartOrderAdapter();
  let h: WorkerHarness;
  let api: HostProcess;

  beforeAll(async () => {
    adapter.slowMs = 150;
    h = await openWorkerHarness(() => [adapter]);
    // The backlog is submitted with no worker running, so what is admitted does not depend on how fast it is submitted.
    api = await h.startProcess({ worker: false, core: { scheduling: FAIR } });
  });

  afterAll(async () => {
    await h?.close();
  });

  it("one user's backlog of 200 tasks lets another user's task start after at most the backlog's running slots (3) more of its tasks", async () => {
    const heavy = await newCaller(api.gengate, 10_000);
    const light = await newCaller(api.gengate, 100);
    const backlog: string[] = [];
    for (let i = 0; i < 200; i++) backlog.push((await api.gengate.submitRun.execute(heavy, MODELS.slow, { prompt: `b${i}` })).task_id);
    // Only the heavy user's running slots are in the shared queue; the rest wait in that user's own queue.
    expect(await api.stores.tasks.activeCounts(heavy.userId, 'image')).toEqual({ admitted: 3, queued: 197 });
    const sharedQueue = await h.pool.query<{ n: number }>(`select count(*)::int as n from pgboss.job where name = 'gengate-generate' and data->>'taskId' = any($1)`, [backlog]);
    expect(sharedQueue.rows[0]?.n).toBe(3);

    // A worker (concurrency 4) starts: the heavy user's tasks flow through its 3 running slots, each admitting the next as it ends.
    const host = await h.startProcess({ core: { scheduling: FAIR }, workerOptions: { concurrency: 4 } });
    await waitFor('the heavy user to have run a few tasks', async () => (adapter.starts.length > 3 ? true : null));
    const { task_id: lightTask } = await host.gengate.submitRun.execute(light, MODELS.slow, { prompt: 'me first' });
    // Every start from here to the light task's own is one of the heavy user's tasks that was ahead of it.
    const startsAtSubmission = adapter.starts.length;
    const done = await ended(host.stores, lightTask);
    expect(done.status).toBe('success');
    const heavyAhead = adapter.starts.indexOf(lightTask) - startsAtSubmission;
    process.stdout.write(`fairness: ${heavyAhead} of the heavy user's tasks started between the light user's submission and its start (${startsAtSubmission} had started before; backlog 200)\n`);
    // In one shared queue it would wait for the whole backlog (about 190 starts); here for at most the 3 admitted ones,
    // that is at most one heavy task's run time, since the worker has a fourth slot.
    expect(adapter.starts).toContain(lightTask);
    expect(heavyAhead).toBeLessThanOrEqual(3);
    const heavyDone = await Promise.all(backlog.slice(0, 5).map((id) => host.stores.tasks.findById(id)));
    expect(heavyDone.some((t) => t?.status === 'waiting')).toBe(false);
  }, 120_000);
});

describe('queued tasks are admitted as earlier ones end', () => {
  const adapter = new FakeAdapter();
  let h: WorkerHarness;
  let host: HostProcess;

  beforeAll(async () => {
    h = await openWorkerHarness(() => [adapter]);
    host = await h.startProcess({ core: { scheduling: FAIR }, workerOptions: { concurrency: 4 } });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('admits queued tasks as earlier ones end, and runs every one of them', async () => {
    const user = await newCaller(host.gengate, 1_000);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await host.gengate.submitRun.execute(user, MODELS.image, { prompt: `q${i}` })).task_id);
    const all = await Promise.all(ids.map((id) => ended(host.stores, id, 30_000)));
    expect(all.every((t) => t.status === 'success')).toBe(true);
    expect(await host.stores.tasks.activeCounts(user.userId, 'image')).toEqual({ admitted: 0, queued: 0 });
  });
});

describe('a full user queue is refused at submission', () => {
  const adapter = new FakeAdapter();
  let h: WorkerHarness;
  let host: HostProcess;

  beforeAll(async () => {
    h = await openWorkerHarness(() => [adapter]);
    host = await h.startProcess({ worker: false, core: { scheduling: { maxRunningPerUser: { chat: 1, image: 2, video: 1 }, maxQueuedPerUser: 3, maxAttempts: 4 } } });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('answers 429 too_many_tasks beyond running + queued slots, holding nothing', async () => {
    const user = await newCaller(host.gengate, 100);
    for (let i = 0; i < 5; i++) await host.gengate.submitRun.execute(user, MODELS.image, { prompt: `ok${i}` });
    const before = await host.stores.ledger.getBalance(user.userId);
    expect(before.heldMicro).toBe(5 * IMAGE_PRICE);
    let refusal: unknown = null;
    try {
      await host.gengate.submitRun.execute(user, MODELS.image, { prompt: 'one too many' });
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ type: 'too_many_tasks', status: 429, headers: { 'Retry-After': '5' } });
    expect((refusal as GatewayError).message).toContain('2 image tasks running and 3 queued');
    expect(await host.stores.ledger.getBalance(user.userId)).toEqual(before);
    const { rows } = await h.pool.query<{ n: number }>('select count(*)::int as n from gengate.tasks where user_id = $1', [user.userId]);
    expect(rows[0]?.n).toBe(5);
    // Another modality has its own slots.
    await expect(host.gengate.submitRun.execute(user, MODELS.video, { prompt: 'video', video_params: { duration: 5 } })).resolves.toMatchObject({ status: 'waiting' });
  });
});

describe('per-provider call limits', () => {
  it('never lets more than maxConcurrent calls of a provider run at once, across two worker processes', async () => {
    const adapter = new FakeAdapter();
    adapter.slowMs = 200;
    const h = await openWorkerHarness(() => [adapter]);
    try {
      const limits = () => ({ maxConcurrent: 2, maxPerMinute: null });
      const limiter = () => new PgCallLimiter(h.pool, DEFAULT_SCHEMA, limits);
      const opts = { core: { callLimiter: limiter() }, workerOptions: { concurrency: 8, providerLimits: limits, providerIds: ['fake'] } };
      const a = await h.startProcess(opts);
      await h.startProcess({ ...opts, core: { callLimiter: limiter() } });
      const users = await Promise.all([1, 2, 3, 4].map(() => newCaller(a.gengate, 1_000)));
      const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => a.gengate.submitRun.execute(users[i % 4]!, MODELS.slow, { prompt: `limited ${i}` })));
      const done = await Promise.all(ids.map((r) => ended(a.stores, r.task_id, 60_000)));
      expect(done.every((t) => t.status === 'success')).toBe(true);
      expect(adapter.maxInFlight).toBe(2);
      // A claim deferred by the limits was undone: each task counts the one attempt that ran.
      expect(done.map((t) => t.attempts)).toEqual(done.map(() => 1));
      // Leases are released right after each call's task committed: every one is gone shortly after.
      await waitFor('every lease to be released', async () => ((await h.pool.query<{ n: number }>('select count(*)::int as n from gengate.provider_call_leases')).rows[0]?.n === 0 ? true : null));
    } finally {
      await h.close();
    }
  }, 120_000);

  it('the memory limiter refuses beyond its limits and says when to retry', async () => {
    let now = 0;
    const m = new MemoryCallLimiter(() => ({ maxConcurrent: 1, maxPerMinute: 2 }), () => now);
    const a = await m.acquire('p');
    expect(a.acquired).toBe(true);
    expect((await m.acquire('p')).acquired).toBe(false);
    if (a.acquired) await a.release();
    const b = await m.acquire('p');
    expect(b.acquired).toBe(true);
    if (b.acquired) await b.release();
    const c = await m.acquire('p');
    expect(c).toMatchObject({ acquired: false, retryAfterMs: 60_000 });
    now = 60_001;
    expect((await m.acquire('p')).acquired).toBe(true);
  });
});
