import { FalAdapter, ReplicateAdapter } from '@gengate/adapters';
import {
  TOKENS,
  type AuthContext,
  type Gengate,
  type MarkupPolicy,
  type RouteHealth,
  type RouteOutcome,
  type RoutedModelDeclaration,
  type TaskView,
} from '@gengate/core';
import { createMemoryGengate, FakeFal, FakeReplicate, type MemoryGengate } from '@gengate/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/*
 * The worker path of issue 21 (routes), with the real fal and Replicate adapters against their fakes
 * (packages/testing/src/fakes: fal's queue and synchronous run APIs, Replicate's predictions API) and the
 * whole core over the in-memory stores: one routed FLUX schnell (A = fal, B = Replicate) and one routed
 * Kling 2.1 (A = fal, B = Replicate). A is made dearer than B by the operator's markup, so the hold (the
 * highest candidate quote, A's) and the charge at B's price differ.
 */

const FLUX: RoutedModelDeclaration = { id: 'flux-schnell', name: 'FLUX.1 [schnell]', routes: ['fal.flux-schnell', 'replicate.flux-schnell'] };
const KLING: RoutedModelDeclaration = { id: 'kling-v2.1', name: 'Kling 2.1', routes: ['fal.kling-v2.1-master', 'replicate.kling-v2.1'] };
// A (fal) at twice the upstream cost, B (Replicate) at cost: FLUX schnell is $0.003 an image on both.
const MARKUP: MarkupPolicy = { defaultBp: 10_000, providers: new Map([['fal', 20_000]]), models: new Map() };
const HOLD_A = 600_000; // 0.3 credits x 2
const PRICE_B = 300_000; // 0.3 credits
const START_CREDITS = 1_000;
const IMAGE = { prompt: 'a lighthouse at dusk', image_params: { aspect_ratio: '1:1' } };
const VIDEO = { prompt: 'a lighthouse at dusk', video_params: { duration: 5, resolution: '1080p', image_urls: ['https://example.com/frame.png'] } };

let fal: FakeFal;
let replicate: FakeReplicate;

beforeAll(async () => {
  [fal, replicate] = await Promise.all([FakeFal.start({ durationMs: 200 }), FakeReplicate.start({ durationMs: 200 })]);
});
afterAll(async () => {
  await Promise.all([fal?.close(), replicate?.close()]);
});
afterEach(() => {
  fal.upstream.reset();
  replicate.upstream.reset();
});

/** A breaker stand-in: refuses the routes in `open`, records every outcome. */
function fakeHealth(open: readonly string[] = []): RouteHealth & { outcomes: RouteOutcome[]; asked: string[] } {
  const outcomes: RouteOutcome[] = [];
  const asked: string[] = [];
  return {
    outcomes,
    asked,
    admit: async (routeId) => {
      asked.push(routeId);
      return !open.includes(routeId);
    },
    record: (o) => void outcomes.push(o),
    states: () => [],
  };
}

interface Setup {
  readonly falUrl?: { run: string; queue: string };
  readonly health?: RouteHealth;
  readonly deadlineMs?: { image?: number; video?: number };
  readonly routed?: readonly RoutedModelDeclaration[];
}

async function gateway(setup: Setup = {}): Promise<{ memory: MemoryGengate; gengate: Gengate; auth: AuthContext }> {
  const poll = { firstMs: 50, maxMs: 100 };
  const adapters = [
    new FalAdapter({ apiKey: 'fal-routes-key-0123456789', baseURL: setup.falUrl?.run ?? fal.runUrl, queueURL: setup.falUrl?.queue ?? fal.queueUrl, jwksUrl: fal.jwksUrl, poll }),
    new ReplicateAdapter({ apiKey: 'r8_routestoken0123456789', baseURL: replicate.baseUrl, poll }),
  ];
  const memory = createMemoryGengate({
    adapters,
    configure: (c) => {
      c.rebind(TOKENS.RoutedModels).toConstantValue(setup.routed ?? [FLUX, KLING]);
      c.rebind(TOKENS.Markup).toConstantValue(MARKUP);
      if (setup.health) c.rebind(TOKENS.RouteHealth).toConstantValue(setup.health);
      const execution = c.get(TOKENS.ExecutionOptions);
      c.rebind(TOKENS.ExecutionOptions).toConstantValue({ ...execution, deadlineMs: { ...execution.deadlineMs, ...setup.deadlineMs } });
    },
  });
  const gengate = memory.gengate;
  const { api_key } = await gengate.admin.createUser({ email: `routes-${crypto.randomUUID()}@example.com`, credits: START_CREDITS });
  const auth = await gengate.authenticate.execute(api_key, null);
  return { memory, gengate, auth };
}

async function run(g: { memory: MemoryGengate; gengate: Gengate; auth: AuthContext }, model: string, body: object): Promise<TaskView> {
  const { task_id } = await g.gengate.submitRun.execute(g.auth, model, body);
  await g.memory.drainJobs();
  return g.gengate.getTask.execute(g.auth, task_id);
}

/** The user's ledger rows of a task, and the balance. */
async function money(g: { memory: MemoryGengate; gengate: Gengate; auth: AuthContext }, taskId: string) {
  const rows = g.memory.db.transactions.filter((t) => t.taskId === taskId).map((t) => ({ creditsMicro: t.creditsMicro, status: t.status }));
  const balance = await g.gengate.billing.balance(g.auth);
  const holds = [...g.memory.db.holds.values()].filter((h) => h.taskId === taskId).map((h) => h.state);
  return { rows, balance, holds };
}

function expectOneChargeAtB(m: Awaited<ReturnType<typeof money>>): void {
  expect(m.rows).toEqual([{ creditsMicro: -PRICE_B, status: 'completed' }]);
  expect(m.balance.credits).toBe(START_CREDITS - PRICE_B / 1_000_000);
  expect(m.balance.available_credits).toBe(START_CREDITS - PRICE_B / 1_000_000);
  expect(m.holds).toEqual(['settled']);
}

describe('routes on the worker path: fallback from A (fal) to B (Replicate)', () => {
  it('holds the highest candidate quote (A\'s) at submission', async () => {
    const g = await gateway();
    const { task_id } = await g.gengate.submitRun.execute(g.auth, 'flux-schnell', IMAGE);
    expect(g.memory.db.holds.get(task_id)?.amountMicro).toBe(HOLD_A);
    expect((await g.gengate.billing.balance(g.auth)).available_credits).toBe(START_CREDITS - HOLD_A / 1_000_000);
  });

  it('A down (connection refused): the task moves to B, one charge at B\'s price', async () => {
    const g = await gateway({ falUrl: { run: 'http://127.0.0.1:1/run', queue: 'http://127.0.0.1:1/queue' } });
    const task = await run(g, 'flux-schnell', IMAGE);
    expect(task.status, JSON.stringify(task)).toBe('success');
    expect(task.route).toEqual({ id: 'replicate.flux-schnell', provider: 'replicate' });
    expect(task.extensions?.attempts.map((a) => [a.route, a.outcome, a.error_class])).toEqual([
      ['fal.flux-schnell', 'error', 'network'],
      ['replicate.flux-schnell', 'success', null],
    ]);
    expectOneChargeAtB(await money(g, task.task_id));
  });

  it('A in a 429 storm: the task moves to B at once, one charge at B\'s price', async () => {
    fal.upstream.failNext({ kind: 'status', status: 429, headers: { 'retry-after': '30' }, body: { detail: 'Rate limit exceeded' } }, { times: 100 });
    const g = await gateway();
    const task = await run(g, 'flux-schnell', IMAGE);
    expect(task.status, JSON.stringify(task)).toBe('success');
    expect(task.route?.id).toBe('replicate.flux-schnell');
    expect(task.extensions?.attempts.map((a) => [a.route, a.outcome, a.error_class, a.upstream_status])).toEqual([
      ['fal.flux-schnell', 'error', 'rate_limited', 429],
      ['replicate.flux-schnell', 'success', null, null],
    ]);
    expect(fal.upstream.calls.length).toBe(1);
    expectOneChargeAtB(await money(g, task.task_id));
  });

  it('A slow past the deadline before accepting: the attempt gives up at half the time left and B answers, one charge at B\'s price', async () => {
    fal.upstream.failNext({ kind: 'delay', ms: 8_000 }, { times: 100 });
    const g = await gateway({ deadlineMs: { image: 4_000 } });
    const task = await run(g, 'flux-schnell', IMAGE);
    expect(task.status, JSON.stringify(task)).toBe('success');
    expect(task.route?.id).toBe('replicate.flux-schnell');
    expect(task.extensions?.attempts.map((a) => [a.route, a.outcome, a.error_class])).toEqual([
      ['fal.flux-schnell', 'error', 'timeout'],
      ['replicate.flux-schnell', 'success', null],
    ]);
    expectOneChargeAtB(await money(g, task.task_id));
  });

  it('A refuses the content (content policy): no fallback, the task fails, the hold is released, B got nothing', async () => {
    fal.upstream.failNext({
      kind: 'status',
      status: 422,
      body: { detail: [{ loc: ['body', 'prompt'], msg: 'The content could not be processed because it contained material flagged by a content checker.', type: 'content_policy_violation' }] },
    });
    const g = await gateway();
    const task = await run(g, 'flux-schnell', IMAGE);
    expect(task.status).toBe('fail');
    expect(task.extensions?.attempts.map((a) => [a.route, a.outcome, a.error_class])).toEqual([['fal.flux-schnell', 'error', 'content_policy']]);
    expect(replicate.upstream.calls).toHaveLength(0);
    const m = await money(g, task.task_id);
    expect(m.rows).toEqual([]);
    expect(m.holds).toEqual(['released']);
    expect(m.balance.available_credits).toBe(START_CREDITS);
  });

  it('an open route (its breaker refuses) is skipped without a request; the attempt log lists the skip and the answer', async () => {
    const health = fakeHealth(['fal.flux-schnell']);
    const g = await gateway({ health });
    const task = await run(g, 'flux-schnell', IMAGE);
    expect(task.status).toBe('success');
    expect(fal.upstream.calls).toHaveLength(0);
    expect(task.extensions?.attempts.map((a) => [a.route, a.outcome, a.error_class])).toEqual([
      ['fal.flux-schnell', 'skipped', 'circuit_open'],
      ['replicate.flux-schnell', 'success', null],
    ]);
    expect(health.asked).toEqual(['fal.flux-schnell', 'replicate.flux-schnell']);
    expect(health.outcomes.map((o) => [o.routeId, o.ok])).toEqual([['replicate.flux-schnell', true]]);
    expectOneChargeAtB(await money(g, task.task_id));
  });

  it('a job A accepted whose status checks then fail is never submitted to B; it is cancelled at A when the task is given up', async () => {
    // Every status check and result read of fal's queue fails with a 500; the submission and the cancel go through.
    fal.upstream.failNext({ kind: 'status', status: 500, body: { detail: 'Internal error' } }, { times: 1_000, match: (c) => c.method === 'GET' && c.path.startsWith('/queue/') });
    const g = await gateway({ deadlineMs: { video: 3_000 } });
    const task = await run(g, 'kling-v2.1', VIDEO);
    expect(task.status).toBe('fail');
    expect(task.error_message).toMatch(/deadline|time/i);
    expect(fal.upstream.callsTo('POST', /^\/queue\//)).toHaveLength(1);
    expect(fal.upstream.callsTo('GET', /\/status/).length).toBeGreaterThan(0);
    expect(fal.upstream.callsTo('PUT', /\/cancel$/)).toHaveLength(1);
    expect(replicate.upstream.calls).toHaveLength(0);
    expect(task.extensions?.attempts.map((a) => [a.route, a.outcome])).toEqual([['fal.kling-v2.1-master', 'started']]);
    const m = await money(g, task.task_id);
    expect(m.rows).toEqual([]);
    expect(m.holds).toEqual(['released']);
  });
});

describe('request-level routing on POST /run', () => {
  it('refuses bad routing input with a catalogued 4xx and writes nothing', async () => {
    const g = await gateway();
    const submit = (body: object) => g.gengate.submitRun.execute(g.auth, 'flux-schnell', { ...IMAGE, ...body });
    await expect(submit({ provider: { only: ['openai'] } })).rejects.toMatchObject({ type: 'invalid_routing', param: 'provider.only[0]' });
    await expect(submit({ provider: { max_price: 0.1 } })).rejects.toMatchObject({ type: 'no_route_available', param: 'provider.max_price' });
    await expect(submit({ provider: { only: ['fal'], ignore: ['fal.flux-schnell'] } })).rejects.toMatchObject({ type: 'no_route_available' });
    await expect(submit({ models: ['kling-v2.1'] })).rejects.toMatchObject({ type: 'invalid_routing', param: 'models[0]' });
    await expect(submit({ provider: { sort: 'cheapest' } })).rejects.toMatchObject({ type: 'invalid_request' });
    expect(g.memory.db.tasks.size).toBe(0);
    expect(g.memory.db.holds.size).toBe(0);
  });

  it('order, only and max_price choose the route and the hold; allow_fallbacks false keeps one candidate', async () => {
    const g = await gateway();
    const cheapest = await g.gengate.submitRun.execute(g.auth, 'flux-schnell', { ...IMAGE, provider: { max_price: 0.3 } });
    expect(g.memory.db.holds.get(cheapest.task_id)?.amountMicro).toBe(PRICE_B);
    const pinned = await g.gengate.submitRun.execute(g.auth, 'flux-schnell', { ...IMAGE, provider: { order: ['replicate'], allow_fallbacks: false } });
    expect(g.memory.db.holds.get(pinned.task_id)?.amountMicro).toBe(PRICE_B);
    await g.memory.drainJobs();
    const task = await g.gengate.getTask.execute(g.auth, pinned.task_id);
    expect(task.route?.id).toBe('replicate.flux-schnell');
    expect(fal.upstream.calls).toHaveLength(0);
  });

  it('a provider model id keeps working as a one-route model, its poll answer unchanged; with routing fields it shows its route', async () => {
    const g = await gateway();
    const plain = await run(g, 'replicate.flux-schnell', IMAGE);
    expect(plain.status).toBe('success');
    expect(Object.keys(plain).sort()).toEqual(['created_at', 'error_message', 'result_urls', 'status', 'task_id']);
    const routed = await run(g, 'replicate.flux-schnell', { ...IMAGE, provider: { allow_fallbacks: false } });
    expect(routed.route).toEqual({ id: 'replicate.flux-schnell', provider: 'replicate' });
  });
});
