import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request, { type Test } from './support/contract-request.js';
import { cookiesOf, linkToken, openDashboardApp, ORIGIN, type DashboardApp } from './support/dashboard-app.js';

const count = async (h: DashboardApp, sql: string, args: unknown[] = []) => (await h.pool.query<{ n: number }>(sql, args)).rows[0]?.n ?? -1;

describe('dashboard sign-in by e-mail link (sign-up closed)', () => {
  let h: DashboardApp;
  beforeAll(async () => {
    h = await openDashboardApp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('mails a one-time link to an existing user; using it opens a session with an HttpOnly, SameSite=Strict cookie', async () => {
    const { user_id } = await h.gengate.admin.createUser({ email: 'Ada@Example.com', credits: 10 });
    const before = h.mails.length;
    const link = await request(h.app).post('/dashboard/api/auth/link').set('Origin', ORIGIN).send({ email: 'ada@example.com' }).expect(200);
    expect(link.body).toEqual({ sent: true });
    const mail = await h.nextMail(before, 'ada@example.com');
    expect(mail?.to).toBe('ada@example.com');
    expect(mail?.text).toMatch(/^http:\/\/gengate\.test\/dashboard\/sign-in#token=[A-Za-z0-9_-]{43}$/m);
    const token = linkToken(mail);
    // Only the token's hash is stored.
    expect(await count(h, 'select count(*)::int as n from gengate.sign_in_tokens where token_hash = $1', [token])).toBe(0);

    const res = await request(h.app).post('/dashboard/api/auth/verify').set('Origin', ORIGIN).set('Cookie', cookiesOf(link)).send({ token }).expect(200);
    expect(res.body).toMatchObject({ signed_in: true, user: { id: user_id, email: 'Ada@Example.com', role: 'user' }, created: false });
    expect(res.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const setCookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('gengate_session=')) ?? '';
    expect(setCookie).toMatch(/^gengate_session=[A-Za-z0-9_-]{43}; Path=\/; Expires=.+; HttpOnly; SameSite=Strict$/);
    const cookie = setCookie.split(';')[0] ?? '';
    const session = await request(h.app).get('/dashboard/api/session').set('Cookie', cookie).expect(200);
    expect(session.body).toMatchObject({ user: { id: user_id }, csrf_token: res.body.csrf_token });
    expect(session.headers['cache-control']).toBe('no-store');
  });

  it('refuses a reused link and an expired one', async () => {
    await h.gengate.admin.createUser({ email: 'bob@example.com' });
    let before = h.mails.length;
    await request(h.app).post('/dashboard/api/auth/link').set('Origin', ORIGIN).send({ email: 'bob@example.com' }).expect(200);
    const used = linkToken(await h.nextMail(before, 'bob@example.com'));
    await request(h.app).post('/dashboard/api/auth/verify').set('Origin', ORIGIN).send({ token: used, confirm: true }).expect(200);
    const again = await request(h.app).post('/dashboard/api/auth/verify').set('Origin', ORIGIN).send({ token: used, confirm: true }).expect(400);
    expect(again.body.error).toEqual({ type: 'sign_in_link_invalid', param: 'token' });

    before = h.mails.length;
    await request(h.app).post('/dashboard/api/auth/link').set('Origin', ORIGIN).send({ email: 'bob@example.com' }).expect(200);
    const late = linkToken(await h.nextMail(before, 'bob@example.com'));
    h.advance(16 * 60_000);
    try {
      const expired = await request(h.app).post('/dashboard/api/auth/verify').set('Origin', ORIGIN).send({ token: late }).expect(400);
      expect(expired.body.error.type).toBe('sign_in_link_invalid');
      expect(expired.body.message).toMatch(/expired or was already used/);
    } finally {
      h.advance(-16 * 60_000);
    }
    await request(h.app).post('/dashboard/api/auth/verify').set('Origin', ORIGIN).send({ token: 'not-a-token' }).expect(400);
  });

  it('answers an unknown address the same way but sends nothing and creates nothing', async () => {
    const before = h.mails.length;
    const res = await request(h.app).post('/dashboard/api/auth/link').set('Origin', ORIGIN).send({ email: 'stranger@example.com' }).expect(200);
    expect(res.body).toEqual({ sent: true });
    await h.settle();
    expect(h.mails.length).toBe(before);
    expect(await count(h, `select count(*)::int as n from gengate.users where email = 'stranger@example.com'`)).toBe(0);
    const bad = await request(h.app).post('/dashboard/api/auth/link').set('Origin', ORIGIN).send({ email: 'not an address' }).expect(400);
    expect(bad.body.error.type).toBe('invalid_request');
  });

  it('sends at most five links an hour to one address', async () => {
    await h.gengate.admin.createUser({ email: 'spam@example.com' });
    const before = h.mails.length;
    for (let i = 0; i < 7; i++) await request(h.app).post('/dashboard/api/auth/link').set('Origin', ORIGIN).send({ email: 'spam@example.com' }).expect(200);
    await h.settle();
    expect(h.mails.length - before).toBe(5);
  });

  it('refuses sign-in requests from another origin (login CSRF)', async () => {
    await h.gengate.admin.createUser({ email: 'cara@example.com' });
    const res = await request(h.app).post('/dashboard/api/auth/link').set('Origin', 'https://evil.example').send({ email: 'cara@example.com' }).expect(403);
    expect(res.body.error.type).toBe('csrf_failed');
    await request(h.app).post('/dashboard/api/auth/verify').send({ token: 'x'.repeat(43) }).expect(403);
    await request(h.app).post('/dashboard/api/auth/verify').set('Origin', ORIGIN).set('Sec-Fetch-Site', 'cross-site').send({ token: 'x'.repeat(43) }).expect(403);
  });

  it('a state-changing request with the session cookie but without the CSRF token is refused and changes nothing', async () => {
    await h.gengate.admin.createUser({ email: 'dan@example.com' });
    const s = await h.signIn('dan@example.com');
    const out = await request(h.app).delete('/dashboard/api/session').set('Origin', ORIGIN).set('Cookie', s.cookie).expect(403);
    expect(out.body.error.type).toBe('csrf_failed');
    await request(h.app).delete('/dashboard/api/session').set('Origin', ORIGIN).set('Cookie', s.cookie).set('X-CSRF-Token', 'wrong').expect(403);
    // Still signed in: nothing changed.
    await request(h.app).get('/dashboard/api/session').set('Cookie', s.cookie).expect(200);
    // Through the /api/v1 seam, the cookie without the token is no authentication at all.
    const keys = await request(h.app).post('/api/v1/api-keys').set('Origin', ORIGIN).set('Cookie', s.cookie).send({ name: 'forged' }).expect(401);
    expect(keys.body.error.type).toBe('authentication_failed');
    expect(await count(h, `select count(*)::int as n from gengate.api_keys where user_id = $1`, [s.userId])).toBe(1); // the CLI-made default key only
  });

  it('a request to /api/v1 from another origin carrying only the session cookie changes nothing', async () => {
    await h.gengate.admin.createUser({ email: 'eve-target@example.com', credits: 100 });
    const s = await h.signIn('eve-target@example.com');
    const tasksBefore = await count(h, 'select count(*)::int as n from gengate.tasks where user_id = $1', [s.userId]);
    const attempts = [
      request(h.app).post('/api/v1/run/sandbox.pixel-image').set('Origin', 'https://evil.example').set('Cookie', s.cookie).send({ prompt: 'forged' }),
      request(h.app).post('/api/v1/api-keys').set('Origin', 'https://evil.example').set('Cookie', s.cookie).send({ name: 'forged' }),
      request(h.app).post('/api/v1/billing/alerts').set('Origin', 'https://evil.example').set('Cookie', s.cookie).send({ threshold: 5 }),
      // Even with the token (which another site cannot read), another origin is refused.
      request(h.app).post('/api/v1/api-keys').set('Origin', 'https://evil.example').set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf).send({ name: 'forged' }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('authentication_failed');
    }
    expect(await count(h, 'select count(*)::int as n from gengate.tasks where user_id = $1', [s.userId])).toBe(tasksBefore);
    expect(await count(h, 'select count(*)::int as n from gengate.api_keys where user_id = $1', [s.userId])).toBe(1);
    expect(await count(h, 'select count(*)::int as n from gengate.balance_alerts where user_id = $1', [s.userId])).toBe(0);
  });

  it('the session with its CSRF token reaches /api/v1 through the seam: keys, quote, run, task list (no API key, no rate limit)', async () => {
    await h.gengate.admin.createUser({ email: 'fay@example.com', credits: 100 });
    const s = await h.signIn('fay@example.com');
    const as = (r: Test) => r.set('Origin', ORIGIN).set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf);
    const created = await as(request(h.app).post('/api/v1/api-keys')).send({ name: 'from the dashboard', rate_limit_per_minute: 5 }).expect(201);
    expect(created.body.key).toMatch(/^gg_live_/);
    const quote = await as(request(h.app).post('/api/v1/models/sandbox.pixel-image/quote')).send({ prompt: 'a fox', image_params: { n: 2 } }).expect(200);
    expect(quote.body).toMatchObject({ model_id: 'sandbox.pixel-image', credits: 4, usd: 0.04, available_credits: 100, sufficient: true });
    const run = await as(request(h.app).post('/api/v1/run/sandbox.pixel-image')).send({ prompt: 'a fox' }).expect(200);
    const task = await h.pool.query('select api_key_id from gengate.tasks where id = $1', [run.body.task_id]);
    expect(task.rows[0].api_key_id).toBeNull();
    const list = await as(request(h.app).get('/api/v1/run/tasks')).expect(200);
    expect(list.body.data[0]).toMatchObject({ task_id: run.body.task_id, model_id: 'sandbox.pixel-image', submitted_with_api_key: false, held_credits: 2 });
    // GET needs the token too ("always with a CSRF token").
    await request(h.app).get('/api/v1/billing/balance').set('Cookie', s.cookie).expect(401);
    const balance = await request(h.app).get('/api/v1/billing/balance').set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf).expect(200);
    expect(balance.body).toMatchObject({ credits: 100, held_credits: 2 });
  });

  it('an API key never opens the dashboard', async () => {
    const { api_key } = await h.gengate.admin.createUser({ email: 'gus@example.com' });
    const res = await request(h.app).get('/dashboard/api/session').set('Authorization', `Bearer ${api_key}`).expect(401);
    expect(res.body.error.type).toBe('session_required');
    await request(h.app).get('/dashboard/api/operator/users').set('Authorization', `Bearer ${api_key}`).expect(401);
  });

  it('operator endpoints: refused for a user; for an operator: users, grants, key revocation, providers, route health, queue, failures', async () => {
    const target = await h.gengate.admin.createUser({ email: 'op-target@example.com', credits: 1 });
    await h.gengate.admin.createUser({ email: 'boss@example.com' });
    const user = await h.signIn('op-target@example.com');
    const refused = await request(h.app).get('/dashboard/api/operator/users').set('Cookie', user.cookie).set('X-CSRF-Token', user.csrf).expect(403);
    expect(refused.body.error.type).toBe('operator_only');

    await h.services.directory.setRole('boss@example.com', 'operator');
    const op = await h.signIn('boss@example.com');
    const as = (r: Test) => r.set('Origin', ORIGIN).set('Cookie', op.cookie).set('X-CSRF-Token', op.csrf);
    await request(h.app).get('/dashboard/api/operator/users').set('Cookie', op.cookie).expect(403); // no CSRF token
    const users = await as(request(h.app).get('/dashboard/api/operator/users?search=OP-TARGET@')).expect(200);
    expect(users.body).toMatchObject({ total: 1, data: [{ id: target.user_id, email: 'op-target@example.com', credits: 1, active_keys: 1, revoked_keys: 0 }] });

    const grant = await as(request(h.app).post(`/dashboard/api/operator/users/${target.user_id}/credits`)).send({ credits: 25, description: 'welcome' }).expect(200);
    expect(grant.body).toMatchObject({ credits: 25, user: { credits: 26, granted_credits: 26 } });
    await as(request(h.app).post(`/dashboard/api/operator/users/${target.user_id}/credits`)).send({ credits: -1 }).expect(400);

    const detail = await as(request(h.app).get(`/dashboard/api/operator/users/${target.user_id}`)).expect(200);
    const keyId = detail.body.api_keys[0].id as string;
    await request(h.app).get('/api/v1/billing/balance').set('Authorization', `Bearer ${target.api_key}`).expect(200);
    await as(request(h.app).delete(`/dashboard/api/operator/users/${target.user_id}/api-keys/${keyId}`)).expect(200);
    await request(h.app).get('/api/v1/billing/balance').set('Authorization', `Bearer ${target.api_key}`).expect(401);
    expect((await as(request(h.app).get(`/dashboard/api/operator/users/${target.user_id}`)).expect(200)).body.user).toMatchObject({ active_keys: 0, revoked_keys: 1 });

    const providers = await as(request(h.app).get('/dashboard/api/operator/providers')).expect(200);
    expect(providers.body.data).toEqual([{ provider: 'sandbox', configured: true, reason: null, settings: [], models: 4, active_models: 4 }]);
    // Route health: what the gateway's breakers saw, by route.
    for (let i = 0; i < 5; i++) h.gengate.routeHealth.record({ routeId: 'fal.kling-v2.1-master', ok: false, errorClass: 'server', latencyMs: 900, at: new Date() });
    h.gengate.routeHealth.record({ routeId: 'replicate.kling-v2.1', ok: true, errorClass: null, latencyMs: 40, at: new Date() });
    const routes = await as(request(h.app).get('/dashboard/api/operator/routes')).expect(200);
    expect(routes.body.data).toEqual([
      { route_id: 'fal.kling-v2.1-master', state: 'open', open_until: expect.any(String), consecutive_failures: 5, recent_attempts: 5, recent_failures: 5, latency_p50_ms: 1_000 },
      { route_id: 'replicate.kling-v2.1', state: 'closed', open_until: null, consecutive_failures: 0, recent_attempts: 1, recent_failures: 0, latency_p50_ms: 100 },
    ]);
    await as(request(h.app).post('/dashboard/api/operator/routes')).expect(405);
    const queue = await as(request(h.app).get('/dashboard/api/operator/queue')).expect(200);
    expect(queue.body.queues.map((q: { queue: string }) => q.queue)).toContain('gengate-generate');
    expect(Array.isArray(queue.body.tasks)).toBe(true);
    await h.pool.query(`insert into gengate.tasks (id, user_id, model_id, modality, status, request, quoted_micro, quoted_cost_micro, error_message, finished_at)
      values (gen_random_uuid(), $1, 'sandbox.always-fail', 'image', 'fail', '{}', 0, 0, 'Sandbox failure', now())`, [target.user_id]);
    const failures = await as(request(h.app).get('/dashboard/api/operator/failures?hours=1')).expect(200);
    expect(failures.body.data).toEqual([{ provider: 'sandbox', failures: 1, models: [expect.objectContaining({ model_id: 'sandbox.always-fail', failures: 1, last_message: 'Sandbox failure' })] }]);
  });

  it('sign-out ends the session everywhere it was used; purge removes expired sessions', async () => {
    await h.gengate.admin.createUser({ email: 'hal@example.com' });
    const s = await h.signIn('hal@example.com');
    await request(h.app).delete('/dashboard/api/session').set('Origin', ORIGIN).set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf).expect(200);
    await request(h.app).get('/dashboard/api/session').set('Cookie', s.cookie).expect(401);
    await request(h.app).get('/api/v1/billing/balance').set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf).expect(401);

    const t = await h.signIn('hal@example.com');
    h.advance(8 * 86_400_000);
    try {
      await request(h.app).get('/dashboard/api/session').set('Cookie', t.cookie).expect(401);
      const purged = await h.services.auth.purgeExpired();
      expect(purged.sessions).toBeGreaterThanOrEqual(1);
      expect(await count(h, 'select count(*)::int as n from gengate.dashboard_sessions where expires_at <= now()')).toBe(0);
    } finally {
      h.advance(-8 * 86_400_000);
    }
  });
});

describe('dashboard open sign-up', () => {
  let h: DashboardApp;
  beforeAll(async () => {
    h = await openDashboardApp({ openSignup: true, signupCredits: 50 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('creates the account when the link is used, with the starting credits, and no API key', async () => {
    const s = await h.signIn('new.user@example.com');
    const session = await request(h.app).get('/dashboard/api/session').set('Cookie', s.cookie).expect(200);
    expect(session.body.user).toMatchObject({ email: 'new.user@example.com', role: 'user' });
    const txs = await request(h.app).get('/api/v1/billing/transactions').set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf).expect(200);
    expect(txs.body.data).toEqual([expect.objectContaining({ credits: 50, payment_method: 'grant', description: 'Sign-up credits' })]);
    expect(await count(h, 'select count(*)::int as n from gengate.api_keys where user_id = $1', [s.userId])).toBe(0);
    const config = await request(h.app).get('/dashboard/api/config').expect(200);
    expect(config.body).toEqual({ open_signup: true, payment_processor: 'manual' });
  });
});
