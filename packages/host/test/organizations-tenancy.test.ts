import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from './support/contract-request.js';
import { openDashboardApp, ORIGIN, type DashboardApp } from './support/dashboard-app.js';
import { as, openOrganization, recordSubmitter, type Person, type Role } from './support/organization-fixture.js';

/**
 * Tenant safety between organizations, and who pays: a key acts on its own organization only (every
 * path or header naming another one is a 404 that changes nothing), and the key's organization is whose
 * credits a submission holds, never the member's personal balance.
 */
describe('organizations: tenant safety', () => {
  let h: DashboardApp;
  let a: { id: string; people: Record<Role, Person> };
  let b: { id: string; people: Record<Role, Person> };
  let bTask: string;
  let bAlert: string;
  let bInvitation: string;

  const balanceOf = async (account: string) => {
    const { rows } = await h.pool.query<{ balance: string; held: string }>('select balance_micro::text as balance, held_micro::text as held from gengate.accounts where user_id = $1', [account]);
    return rows[0];
  };
  const counts = async () => {
    const { rows } = await h.pool.query<{ tasks: number; holds: number; tx: number; members: number; invitations: number; keys: number }>(
      `select (select count(*)::int from gengate.tasks) as tasks, (select count(*)::int from gengate.holds) as holds,
              (select count(*)::int from gengate.transactions) as tx, (select count(*)::int from gengate.organization_members) as members,
              (select count(*)::int from gengate.organization_invitations where revoked_at is null) as invitations,
              (select count(*)::int from gengate.api_keys where revoked_at is null) as keys`,
    );
    return rows[0];
  };

  beforeAll(async () => {
    h = await openDashboardApp();
    a = await openOrganization(h, 'tenant-a');
    b = await openOrganization(h, 'tenant-b');
    const submitted = await as(h, b.people.member, 'key', 'post', '/run/sandbox.echo-chat', b.id).send({ prompt: 'b' }).expect(200);
    bTask = submitted.body.task_id as string;
    await recordSubmitter(h, bTask, b.people.member.userId);
    bAlert = (await as(h, b.people.owner, 'key', 'post', '/billing/alerts', null).send({ threshold: 3 }).expect(201)).body.id as string;
    bInvitation = (await as(h, b.people.owner, 'key', 'post', `/organizations/${b.id}/invitations`, null).send({ email: 'someone@example.com' }).expect(201)).body.id as string;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it("an owner's key of one organization gets 404 for every path naming the other organization or its resources, and changes nothing", async () => {
    const key = a.people.owner;
    const before = await counts();
    const refusals: [Parameters<typeof as>[3], string, object | undefined, string][] = [
      ['get', `/organizations/${b.id}`, undefined, 'organization_not_found'],
      ['patch', `/organizations/${b.id}`, { name: 'taken' }, 'organization_not_found'],
      ['get', `/organizations/${b.id}/members`, undefined, 'organization_not_found'],
      ['patch', `/organizations/${b.id}/members/${b.people.member.userId}`, { role: 'admin' }, 'organization_not_found'],
      ['delete', `/organizations/${b.id}/members/${b.people.member.userId}`, undefined, 'organization_not_found'],
      ['get', `/organizations/${b.id}/invitations`, undefined, 'organization_not_found'],
      ['post', `/organizations/${b.id}/invitations`, { email: 'x@example.com' }, 'organization_not_found'],
      ['delete', `/organizations/${b.id}/invitations/${bInvitation}`, undefined, 'organization_not_found'],
      ['get', `/run/tasks/${bTask}`, undefined, 'task_not_found'],
      ['post', `/run/tasks/${bTask}/cancel`, undefined, 'task_not_found'],
      ['get', `/run/tasks/${bTask}/callbacks`, undefined, 'task_not_found'],
      ['put', `/api-keys/${b.people.member.keyId}`, { name: 'taken' }, 'api_key_not_found'],
      ['delete', `/api-keys/${b.people.member.keyId}`, undefined, 'api_key_not_found'],
      ['delete', `/billing/alerts/${bAlert}`, undefined, 'alert_not_found'],
    ];
    for (const [method, path, body, type] of refusals) {
      const t = as(h, key, 'key', method, path, null);
      const res = await (body ? t.send(body) : t);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.type, `${method} ${path}`).toBe(type);
    }
    expect(await counts()).toEqual(before);
    const { rows } = await h.pool.query('select name from gengate.organizations where id = $1', [b.id]);
    expect(rows[0]?.name).toBe('Team tenant-b');
    const task = await as(h, b.people.owner, 'key', 'get', `/run/tasks/${bTask}`, null).expect(200);
    expect(task.body.status).toBe('waiting');
  });

  it("a key naming another organization in X-Gengate-Organization gets 404 organization_not_found and spends nothing; its own is accepted; a malformed one is 400", async () => {
    const member = a.people.member;
    const before = await counts();
    const [aBefore, bBefore] = [await balanceOf(a.id), await balanceOf(b.id)];
    for (const other of [b.id, member.userId]) {
      const run = await as(h, member, 'key', 'post', '/run/sandbox.echo-chat', null).set('X-Gengate-Organization', other).send({ prompt: 'x' }).expect(404);
      expect(run.body.error).toEqual({ type: 'organization_not_found', param: 'X-Gengate-Organization' });
      const balance = await as(h, member, 'key', 'get', '/billing/balance', null).set('X-Gengate-Organization', other).expect(404);
      expect(balance.body.error.type).toBe('organization_not_found');
    }
    const bad = await as(h, member, 'key', 'get', '/billing/balance', null).set('X-Gengate-Organization', 'not-a-uuid').expect(400);
    expect(bad.body.error).toEqual({ type: 'invalid_request', param: 'X-Gengate-Organization' });
    expect(await counts()).toEqual(before);
    expect([await balanceOf(a.id), await balanceOf(b.id)]).toEqual([aBefore, bBefore]);
    await as(h, member, 'key', 'get', '/billing/balance', null).set('X-Gengate-Organization', a.id.toUpperCase()).expect(200);
  });

  it("a session naming an organization its user is not a member of gets 404 and changes nothing; without the header it acts on the personal organization", async () => {
    const member = a.people.member;
    const before = await counts();
    const run = await as(h, member, 'session', 'post', '/run/sandbox.echo-chat', b.id).send({ prompt: 'x' }).expect(404);
    expect(run.body.error.type).toBe('organization_not_found');
    const keys = await as(h, member, 'session', 'post', '/api-keys', b.id).send({ name: 'sneaky' }).expect(404);
    expect(keys.body.error.type).toBe('organization_not_found');
    expect(await counts()).toEqual(before);
    const personal = await as(h, member, 'session', 'get', '/organizations', null).expect(200);
    expect(personal.body.data[0]).toMatchObject({ id: member.userId, personal: true, role: 'owner' });
    const listed = await as(h, member, 'session', 'get', '/api-keys', null).expect(200);
    expect(listed.body.data.map((k: { id: string }) => k.id)).not.toContain(member.keyId);
  });

  it("the key's organization is whose credits are held: the organization's available balance goes down, the member's personal balance does not", async () => {
    const member = a.people.member;
    await h.gengate.admin.grantCredits(member.userId, 50);
    const [orgBefore, personalBefore] = [await balanceOf(a.id), await balanceOf(member.userId)];
    const res = await as(h, member, 'key', 'post', '/run/sandbox.echo-chat', null).send({ prompt: 'who pays?' }).expect(200);
    const [orgAfter, personalAfter] = [await balanceOf(a.id), await balanceOf(member.userId)];
    expect(BigInt(orgAfter?.held ?? 0)).toBeGreaterThan(BigInt(orgBefore?.held ?? 0));
    expect(personalAfter).toEqual(personalBefore);
    const { rows } = await h.pool.query<{ user_id: string; api_key_id: string }>('select user_id, api_key_id from gengate.tasks where id = $1', [res.body.task_id]);
    expect(rows[0]).toEqual({ user_id: a.id, api_key_id: member.keyId });
    // The balance a key reads is its organization's; the member's own session without the header reads the personal one.
    const orgView = await as(h, member, 'key', 'get', '/billing/balance', null).expect(200);
    expect(orgView.body.held_credits).toBeGreaterThan(0);
    const personalView = await as(h, member, 'session', 'get', '/billing/balance', null).expect(200);
    expect(personalView.body).toMatchObject({ credits: 50, held_credits: 0 });
  });

  it('the dashboard’s own endpoints keep their rules: an API key never opens them, an organization owner is no operator', async () => {
    const owner = a.people.owner;
    const byKey = await request(h.app).get('/dashboard/api/operator/users').set('Authorization', `Bearer ${owner.key}`).expect(401);
    expect(byKey.body.error.type).toBe('session_required');
    const bySession = await request(h.app)
      .get('/dashboard/api/operator/users')
      .set('Origin', ORIGIN)
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf)
      .set('X-Gengate-Organization', a.id)
      .expect(403);
    expect(bySession.body.error.type).toBe('operator_only');
    const session = await request(h.app).get('/dashboard/api/session').set('Cookie', owner.cookie).set('X-Gengate-Organization', b.id).expect(200);
    expect(session.body.user).toMatchObject({ id: owner.userId, role: 'user' });
  });
});
