import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboardApp, type DashboardApp } from './support/dashboard-app.js';
import { as, invitationToken, signedIn, type Person } from './support/organization-fixture.js';

/** docs/organizations.md over HTTP: create, invite, preview, accept, members, roles, the last owner, removal. */
describe('organizations: the organization and invitation flows', () => {
  let h: DashboardApp;
  let ann: Person;
  let bob: Person;
  let eve: Person;

  const person = async (email: string): Promise<Person> => ({ ...(await signedIn(h, email)), email, key: '', keyId: '' });

  beforeAll(async () => {
    h = await openDashboardApp();
    ann = await person('ann@example.com');
    bob = await person('Bob@Example.com');
    eve = await person('eve@example.com');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('create, invite, preview, accept by the invited user only, members, role change, last owner, removal revokes the member’s keys', async () => {
    // Ann creates an organization: she is its owner; it is listed after her personal one.
    const created = await as(h, ann, 'session', 'post', '/organizations', null).send({ name: 'Acme video team' }).expect(201);
    const org = created.body.id as string;
    expect(created.body).toEqual({ id: org, name: 'Acme video team', personal: false, role: 'owner', created_at: expect.any(String) });
    const listed = await as(h, ann, 'session', 'get', '/organizations', null).expect(200);
    expect(listed.body.data.map((o: { id: string; personal: boolean }) => [o.id, o.personal])).toEqual([
      [ann.userId, true],
      [org, false],
    ]);

    // She invites Bob (by another spelling of his address); the pending invitation is listed.
    const invited = await as(h, ann, 'session', 'post', `/organizations/${org}/invitations`, org).send({ email: 'bob@example.com' }).expect(201);
    expect(invited.body).toMatchObject({ email: 'bob@example.com', role: 'member', status: 'pending', invited_by: 'ann@example.com', accepted_at: null });
    const pending = await as(h, ann, 'session', 'get', `/organizations/${org}/invitations`, org).expect(200);
    expect(pending.body.data.map((i: { id: string }) => i.id)).toEqual([invited.body.id]);
    const token = invitationToken(h, 'bob@example.com');

    // The link's page shows what it offers; Eve holding the token may look but not accept.
    const preview = await as(h, bob, 'session', 'post', '/invitations/preview', null).send({ token }).expect(200);
    expect(preview.body).toMatchObject({ organization: { id: org, name: 'Acme video team' }, email: 'bob@example.com', role: 'member', status: 'pending' });
    const mismatch = await as(h, eve, 'session', 'post', '/invitations/accept', null).send({ token }).expect(403);
    expect(mismatch.body.error.type).toBe('invitation_email_mismatch');
    const unknown = await as(h, bob, 'session', 'post', '/invitations/accept', null).send({ token: 'x'.repeat(43) }).expect(404);
    expect(unknown.body.error.type).toBe('invitation_not_found');

    // Bob accepts: he is a member, once.
    const accepted = await as(h, bob, 'session', 'post', '/invitations/accept', null).send({ token }).expect(200);
    expect(accepted.body).toMatchObject({ id: org, role: 'member', personal: false });
    const again = await as(h, bob, 'session', 'post', '/invitations/accept', null).send({ token });
    expect([404, 409]).toContain(again.status);
    const members = await as(h, bob, 'session', 'get', `/organizations/${org}/members`, org).expect(200);
    expect(members.body.data.map((m: { user_id: string; role: string }) => [m.user_id, m.role]).sort()).toEqual(
      [
        [ann.userId, 'owner'],
        [bob.userId, 'member'],
      ].sort(),
    );

    // Bob creates a key of the organization; as a member he may not remove Ann.
    const bobKey = await as(h, bob, 'session', 'post', '/api-keys', org).send({ name: 'bob in acme' }).expect(201);
    await as(h, { ...bob, key: bobKey.body.key as string }, 'key', 'get', '/billing/balance', null).expect(200);
    const notAllowed = await as(h, bob, 'session', 'delete', `/organizations/${org}/members/${ann.userId}`, org).expect(403);
    expect(notAllowed.body.error.type).toBe('insufficient_role');

    // The last owner can neither step down nor leave; after promoting Bob to owner she could.
    const demote = await as(h, ann, 'session', 'patch', `/organizations/${org}/members/${ann.userId}`, org).send({ role: 'admin' }).expect(409);
    expect(demote.body.error.type).toBe('last_owner');
    const leave = await as(h, ann, 'session', 'delete', `/organizations/${org}/members/${ann.userId}`, org).expect(409);
    expect(leave.body.error.type).toBe('last_owner');
    const promoted = await as(h, ann, 'session', 'patch', `/organizations/${org}/members/${bob.userId}`, org).send({ role: 'admin' }).expect(200);
    expect(promoted.body).toMatchObject({ user_id: bob.userId, role: 'admin' });
    const asAdmin = await as(h, bob, 'session', 'get', `/organizations/${org}`, org).expect(200);
    expect(asAdmin.body.role).toBe('admin');

    // Ann removes Bob: his key of the organization answers 401 at once, his session cannot select it any more.
    await as(h, ann, 'session', 'delete', `/organizations/${org}/members/${bob.userId}`, org).expect(204);
    const revoked = await as(h, { ...bob, key: bobKey.body.key as string }, 'key', 'get', '/billing/balance', null).expect(401);
    expect(revoked.body.error.type).toBe('authentication_failed');
    const gone = await as(h, bob, 'session', 'get', '/billing/balance', org).expect(404);
    expect(gone.body.error.type).toBe('organization_not_found');
    const after = await as(h, ann, 'session', 'get', `/organizations/${org}/members`, org).expect(200);
    expect(after.body.data.map((m: { user_id: string }) => m.user_id)).toEqual([ann.userId]);
  });

  it('a personal organization takes no invitations and its owner cannot leave it; renaming is the owner’s', async () => {
    const personal = await as(h, eve, 'session', 'post', `/organizations/${eve.userId}/invitations`, null).send({ email: 'friend@example.com' }).expect(409);
    expect(personal.body.error.type).toBe('personal_organization');
    const leave = await as(h, eve, 'session', 'delete', `/organizations/${eve.userId}/members/${eve.userId}`, null).expect(409);
    expect(['personal_organization', 'last_owner']).toContain(leave.body.error.type);
    const renamed = await as(h, eve, 'session', 'patch', `/organizations/${eve.userId}`, null).send({ name: 'Eve at home' }).expect(200);
    expect(renamed.body).toMatchObject({ id: eve.userId, name: 'Eve at home', personal: true, role: 'owner' });
    const invalid = await as(h, eve, 'session', 'post', '/organizations', null).send({ name: '' }).expect(400);
    expect(invalid.body.error).toMatchObject({ type: 'invalid_request', param: 'name' });
  });

  it('an organization another user cannot see is a 404, for every organization path, with the session', async () => {
    const created = await as(h, ann, 'session', 'post', '/organizations', null).send({ name: 'Private' }).expect(201);
    const org = created.body.id as string;
    for (const path of [`/organizations/${org}`, `/organizations/${org}/members`, `/organizations/${org}/invitations`]) {
      const res = await as(h, eve, 'session', 'get', path, null).expect(404);
      expect(res.body.error.type).toBe('organization_not_found');
    }
  });
});
