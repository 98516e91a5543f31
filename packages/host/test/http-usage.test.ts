import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from './support/contract-request.js';
import { openDashboardApp, ORIGIN, type DashboardApp } from './support/dashboard-app.js';

/**
 * GET /api/v1/usage and the operator's GET /dashboard/api/operator/usage over HTTP, on PostgreSQL: tasks
 * run through the real intake, worker use case and settlement functions, so the rollups read are the
 * ones migration 023's trigger kept. Every /api/v1 exchange is checked against docs/openapi.yaml.
 */
describe('HTTP: usage analytics', () => {
  let h: DashboardApp;
  let alice: { user_id: string; api_key: string };
  let bob: { user_id: string; api_key: string };
  const as = (key: string) => (path: string) => request(h.app).get(`/api/v1${path}`).set('Authorization', `Bearer ${key}`);

  const runTask = async (key: string, model: string, body: object) => {
    const res = await request(h.app).post(`/api/v1/run/${model}`).set('Authorization', `Bearer ${key}`).send(body).expect(200);
    await h.gengate.executeTask.runGeneration(res.body.task_id as string, new AbortController().signal);
    return res.body.task_id as string;
  };

  beforeAll(async () => {
    h = await openDashboardApp();
    alice = await h.gengate.admin.createUser({ email: 'alice-usage@example.com', credits: 100 });
    bob = await h.gengate.admin.createUser({ email: 'bob-usage@example.com', credits: 100 });
    await runTask(alice.api_key, 'sandbox.pixel-image', { prompt: 'a fox' });
    await runTask(alice.api_key, 'sandbox.pixel-image', { prompt: 'a hen', image_params: { n: 2 } });
    await runTask(alice.api_key, 'sandbox.always-fail', { prompt: 'nothing' });
    await runTask(bob.api_key, 'sandbox.echo-chat', { prompt: 'hello there' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers the caller\'s usage grouped by model: credits from the ledger, failures, images, latency', async () => {
    const res = await as(alice.api_key)('/usage?group_by=model').expect(200);
    expect(res.body.group_by).toEqual(['model']);
    expect(res.body.data.map((r: { model: string }) => r.model)).toEqual(['sandbox.always-fail', 'sandbox.pixel-image']);
    const [fail, image] = res.body.data;
    expect(fail).toMatchObject({ tasks: 1, failures: 1, credits: 0, images: 0, latency_p50_ms: null, latency_p95_ms: null });
    expect(image).toMatchObject({ tasks: 2, failures: 0, images: 3, credits: 6 });
    expect(image.latency_p50_ms).toEqual(expect.any(Number));
    expect(res.body.totals).toMatchObject({ tasks: 3, failures: 1, credits: 6, images: 3 });
    // The ledger agrees: the balance went down by exactly the usage's credits.
    const balance = await as(alice.api_key)('/billing/balance').expect(200);
    expect(balance.body.credits).toBe(100 - res.body.totals.credits);
  });

  it('never shows another user\'s usage', async () => {
    const mine = await as(alice.api_key)('/usage?group_by=provider,key').expect(200);
    expect(mine.body.data).toHaveLength(1);
    expect(mine.body.data[0]).toMatchObject({ provider: 'sandbox', tasks: 3, key_name: expect.any(String) });
    const bobs = await as(bob.api_key)('/usage?group_by=model').expect(200);
    expect(bobs.body.data.map((r: { model: string }) => r.model)).toEqual(['sandbox.echo-chat']);
    expect(bobs.body.totals.tasks).toBe(1);
    expect(bobs.body.totals.input_tokens).toBeGreaterThan(0);
    // Alice's key id as a filter in Bob's query finds nothing of hers.
    const aliceKey = mine.body.data[0].key_id as string;
    expect((await as(bob.api_key)(`/usage?key_id=${aliceKey}`).expect(200)).body.totals.tasks).toBe(0);
    expect((await as(bob.api_key)('/usage?model=sandbox.pixel-image').expect(200)).body.data).toEqual([]);
  });

  it('exports CSV for format=csv and for Accept: text/csv', async () => {
    const res = await as(alice.api_key)('/usage?group_by=day,model&format=csv').expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = res.text.trimEnd().split('\n');
    expect(lines[0]).toBe('day,model,credits,tasks,failures,input_tokens,output_tokens,images,video_seconds,latency_p50_ms,latency_p95_ms');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\d,sandbox\.always-fail,0\.000000,1,1,0,0,0,0,,$/);
    expect(lines[2]).toMatch(/^\d{4}-\d\d-\d\d,sandbox\.pixel-image,6\.000000,2,0,0,0,3,0,\d+,\d+$/);
    const byAccept = await as(alice.api_key)('/usage?group_by=day,model').set('Accept', 'text/csv').expect(200);
    expect(byAccept.text).toBe(res.text);
    // format=json wins over the Accept header.
    const json = await as(alice.api_key)('/usage?format=json').set('Accept', 'text/csv').expect(200);
    expect(json.body.totals.tasks).toBe(3);
  });

  it('groups by member (a personal organization: its owner, who submitted every task), JSON and CSV', async () => {
    const res = await as(alice.api_key)('/usage?group_by=member').expect(200);
    expect(res.body.data).toEqual([expect.objectContaining({ member_id: alice.user_id, member_email: 'alice-usage@example.com', tasks: 3 })]);
    expect((await as(alice.api_key)(`/usage?member=${alice.user_id}`).expect(200)).body.totals.tasks).toBe(3);
    expect((await as(alice.api_key)(`/usage?member=${bob.user_id}`).expect(200)).body.totals.tasks).toBe(0);
    const csv = await as(alice.api_key)('/usage?group_by=member,model&format=csv').expect(200);
    const lines = csv.text.trimEnd().split('\n');
    expect(lines[0]).toBe('member_id,member_email,model,credits,tasks,failures,input_tokens,output_tokens,images,video_seconds,latency_p50_ms,latency_p95_ms');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 5).join(','))).toEqual([
      `${alice.user_id},alice-usage@example.com,sandbox.always-fail,0.000000,1`,
      `${alice.user_id},alice-usage@example.com,sandbox.pixel-image,6.000000,2`,
    ]);
  });

  it('refuses bad queries with 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['group_by=week', 'group_by'],
      ['member=12', 'member'],
      ['group_by=day,hour', 'group_by'],
      ['from=last-tuesday', 'from'],
      ['from=2026-03-01&to=2026-02-01', 'to'],
      ['from=2025-01-01&to=2026-06-01', 'from'],
      ['group_by=hour&from=2026-01-01&to=2026-03-01', 'from'],
      ['key_id=12', 'key_id'],
      ['format=xml', 'format'],
      ['user_id=7d7b4c8e-2f7a-4c44-9d7e-6c1f5b0a9e11', 'user_id'],
    ];
    for (const [query, param] of cases) {
      const res = await as(alice.api_key)(`/usage?${query}`).expect(400);
      expect([query, res.body.error]).toEqual([query, { type: 'invalid_request', param }]);
    }
  });

  it('answers a dashboard session with the signed-in user\'s usage', async () => {
    const s = await h.signIn('alice-usage@example.com');
    const res = await request(h.app).get('/api/v1/usage').set('Origin', ORIGIN).set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf).expect(200);
    expect(res.body.totals.tasks).toBe(3);
  });

  it('operator usage: refused for a user; for an operator every user, per user and provider, JSON or CSV', async () => {
    const user = await h.signIn('bob-usage@example.com');
    const refused = await request(h.app).get('/dashboard/api/operator/usage').set('Cookie', user.cookie).set('X-CSRF-Token', user.csrf).expect(403);
    expect(refused.body.error.type).toBe('operator_only');

    await h.gengate.admin.createUser({ email: 'op-usage@example.com' });
    await h.services.directory.setRole('op-usage@example.com', 'operator');
    const op = await h.signIn('op-usage@example.com');
    const get = (path: string) => request(h.app).get(path).set('Origin', ORIGIN).set('Cookie', op.cookie).set('X-CSRF-Token', op.csrf);
    const all = await get('/dashboard/api/operator/usage?group_by=user,provider').expect(200);
    const rows = all.body.data as { user_id: string; user_email: string; provider: string; tasks: number }[];
    expect(rows.map((r) => [r.user_email, r.provider, r.tasks]).sort()).toEqual([
      ['alice-usage@example.com', 'sandbox', 3],
      ['bob-usage@example.com', 'sandbox', 1],
    ]);
    const one = await get(`/dashboard/api/operator/usage?group_by=day&user_id=${bob.user_id}`).expect(200);
    expect(one.body.totals.tasks).toBe(1);
    const csv = await get('/dashboard/api/operator/usage?group_by=user&format=csv').expect(200);
    expect(csv.text.split('\n')[0]).toBe('user_id,user_email,credits,tasks,failures,input_tokens,output_tokens,images,video_seconds,latency_p50_ms,latency_p95_ms');
    const bad = await get('/dashboard/api/operator/usage?group_by=week').expect(400);
    expect(bad.body.error).toEqual({ type: 'invalid_request', param: 'group_by' });
  });
});
