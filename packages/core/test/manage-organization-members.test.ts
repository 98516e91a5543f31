import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NO_KEY_CONTROLS } from '../src/model/api-key.js';
import { expectGatewayError, organizationKit } from './support/organization-kit.js';

async function team() {
  const k = organizationKit();
  const [owner, admin, member, other] = [await k.user('owner'), await k.user('admin'), await k.user('member'), await k.user('other')];
  const org = await k.orgs.create(k.session(owner), { name: 'Team' });
  const as = (u: { id: string }) => k.session(u as never, org.id);
  await k.join(as(owner), org.id, admin, 'admin');
  await k.join(as(owner), org.id, member, 'member');
  await k.join(as(owner), org.id, other, 'member');
  return { k, org, owner, admin, member, other, as };
}

describe('ManageOrganizations: members', () => {
  it('lists members with e-mail, role, spend limit and joined_at (every role may)', async () => {
    const { k, org, member, as } = await team();
    const { data } = await k.orgs.listMembers(as(member), org.id);
    expect(data.map((m) => [m.email, m.role])).toEqual([
      ['owner@example.com', 'owner'],
      ['admin@example.com', 'admin'],
      ['member@example.com', 'member'],
      ['other@example.com', 'member'],
    ]);
    expect(data[0]).toEqual({ user_id: expect.any(String), email: 'owner@example.com', role: 'owner', spend_limit: null, budget_period: 'month', joined_at: expect.any(String) });
  });

  it('role changes: owner only; limits: owner for anyone, admin for members only; member: insufficient_role', async () => {
    const { k, org, owner, admin, member, other, as } = await team();
    await expect(k.orgs.updateMember(as(admin), org.id, member.id, { role: 'admin' })).rejects.toMatchObject({ type: 'insufficient_role', message: expect.stringContaining("'owner'") });
    await expectGatewayError(() => k.orgs.updateMember(as(admin), org.id, owner.id, { spend_limit: 5 }), 'insufficient_role');
    await expectGatewayError(() => k.orgs.updateMember(as(admin), org.id, admin.id, { spend_limit: 5 }), 'insufficient_role');
    await expectGatewayError(() => k.orgs.updateMember(as(member), org.id, other.id, { spend_limit: 5 }), 'insufficient_role');
    expect(await k.orgs.updateMember(as(admin), org.id, member.id, { spend_limit: 12.5, budget_period: 'week' })).toMatchObject({ user_id: member.id, role: 'member', spend_limit: 12.5, budget_period: 'week' });
    expect(await k.orgs.updateMember(as(owner), org.id, admin.id, { role: 'member', spend_limit: 1 })).toMatchObject({ role: 'member', spend_limit: 1 });
    expect(await k.orgs.updateMember(as(owner), org.id, member.id, { spend_limit: null })).toMatchObject({ spend_limit: null, budget_period: 'week' });
    await expectGatewayError(() => k.orgs.updateMember(as(owner), org.id, randomUUID(), { spend_limit: 1 }), 'member_not_found', 'user_id');
    await expectGatewayError(() => k.orgs.updateMember(as(owner), org.id, 'not-a-uuid', { spend_limit: 1 }), 'member_not_found', 'user_id');
  });

  it('demoting the last owner: last_owner; a personal organization role change: personal_organization', async () => {
    const { k, org, owner, as } = await team();
    await expectGatewayError(() => k.orgs.updateMember(as(owner), org.id, owner.id, { role: 'admin' }), 'last_owner');
    expect((await k.orgs.get(as(owner), org.id)).role).toBe('owner');
    await expectGatewayError(() => k.orgs.updateMember(k.session(owner), owner.id, owner.id, { role: 'admin' }), 'personal_organization');
    expect(await k.orgs.updateMember(k.session(owner), owner.id, owner.id, { spend_limit: 3 })).toMatchObject({ role: 'owner', spend_limit: 3 });
  });

  it('removal: owner anyone, admin members, anyone themselves; last owner and personal owner refused', async () => {
    const { k, org, owner, admin, member, other, as } = await team();
    await expect(k.orgs.removeMember(as(member), org.id, other.id)).rejects.toMatchObject({ type: 'insufficient_role', message: expect.stringContaining("'admin'") });
    await expect(k.orgs.removeMember(as(member), org.id, admin.id)).rejects.toMatchObject({ type: 'insufficient_role', message: expect.stringContaining("'owner'") });
    await expectGatewayError(() => k.orgs.removeMember(as(admin), org.id, owner.id), 'insufficient_role');
    await expectGatewayError(() => k.orgs.removeMember(as(owner), org.id, owner.id), 'last_owner');
    await expectGatewayError(() => k.orgs.removeMember(as(owner), org.id, randomUUID()), 'member_not_found');
    await expectGatewayError(() => k.orgs.removeMember(k.session(owner), owner.id, owner.id), 'personal_organization');
    await k.orgs.removeMember(as(admin), org.id, other.id);
    await k.orgs.removeMember(as(member), org.id, member.id);
    await k.orgs.removeMember(as(owner), org.id, admin.id);
    expect((await k.orgs.listMembers(as(owner), org.id)).data.map((m) => m.email)).toEqual(['owner@example.com']);
    await expectGatewayError(() => k.orgs.get(as(member), org.id), 'organization_not_found');
  });

  it("removing a member revokes their keys in the organization (only theirs) and fails their waiting tasks, like ManageKeys.revoke", async () => {
    const { k, org, owner, member, as } = await team();
    const key = (memberId: string) => ({
      id: randomUUID(), userId: org.id, memberId, name: 'k', secretHash: randomUUID(), mask: 'gg_…', limits: { perMinute: null, perHour: null, perDay: null }, ipWhitelist: [], controls: NO_KEY_CONTROLS,
    });
    const theirs = await k.scope.keys.insert(key(member.id));
    const ownersKey = await k.scope.keys.insert(key(owner.id));
    const personal = await k.scope.keys.insert({ ...key(member.id), userId: member.id });
    const task = await k.scope.tasks.insert({
      id: randomUUID(), userId: org.id, memberId: member.id, apiKeyId: theirs.id, modelId: 'm', modality: 'image', request: { prompt: 'x' }, callbackUrl: null, quotedMicro: 0, quotedCostMicro: 0, admitted: false,
    });
    await k.orgs.removeMember(as(owner), org.id, member.id);
    expect(await k.scope.keys.findActiveForUser(theirs.id, org.id)).toBeNull();
    expect(await k.scope.keys.findActiveForUser(ownersKey.id, org.id)).not.toBeNull();
    expect(await k.scope.keys.findActiveForUser(personal.id, member.id)).not.toBeNull();
    expect((await k.scope.tasks.findById(task.id))?.status).toBe('fail');
  });
});

describe('ManageOrganizations: invitations', () => {
  it('owner invites any role, admin members only, member none; a personal organization none; a member already: already_member', async () => {
    const { k, org, owner, admin, member, as } = await team();
    await expectGatewayError(() => k.orgs.invite(as(admin), org.id, { email: 'x@example.com', role: 'admin' }), 'insufficient_role');
    await expectGatewayError(() => k.orgs.invite(as(member), org.id, { email: 'x@example.com' }), 'insufficient_role');
    await expectGatewayError(() => k.orgs.invite(k.session(owner), owner.id, { email: 'x@example.com' }), 'personal_organization');
    await expectGatewayError(() => k.orgs.invite(as(owner), org.id, { email: 'MEMBER@example.com' }), 'already_member', 'email');
    const sent = k.mails.length;
    const inv = await k.orgs.invite(as(admin), org.id, { email: 'new@example.com' });
    expect(inv).toMatchObject({ email: 'new@example.com', role: 'member', status: 'pending', invited_by: 'admin@example.com', accepted_at: null });
    expect(new Date(inv.expires_at).getTime() - new Date(inv.created_at).getTime()).toBe(7 * 86_400_000);
    expect(k.mails).toHaveLength(sent + 1);
    expect(k.mails.at(-1)).toMatchObject({ to: 'new@example.com', organizationName: 'Team', invitedBy: 'admin@example.com', role: 'member' });
    expect(k.mails.at(-1)?.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify([...k.db.invitations.values()])).not.toContain(k.mails.at(-1)?.token);
  });

  it('inviting again replaces the pending one; list (owner/admin) shows pending and expired; revoke once', async () => {
    const { k, org, owner, member, as } = await team();
    const first = await k.orgs.invite(as(owner), org.id, { email: 'x@example.com' });
    const firstToken = k.mails.at(-1)?.token;
    k.advance(1000);
    const second = await k.orgs.invite(as(owner), org.id, { email: 'X@example.com', role: 'admin' });
    k.advance(1000);
    const third = await k.orgs.invite(as(owner), org.id, { email: 'y@example.com' });
    expect((await k.orgs.listInvitations(as(owner), org.id)).data.map((i) => i.id)).toEqual([third.id, second.id]);
    await expectGatewayError(() => k.orgs.listInvitations(as(member), org.id), 'insufficient_role');
    await expectGatewayError(() => k.orgs.revokeInvitation(as(member), org.id, third.id), 'insufficient_role');
    expect((await k.orgs.previewInvitation(as(member), { token: firstToken })).status).toBe('revoked');
    await k.orgs.revokeInvitation(as(owner), org.id, third.id);
    await expectGatewayError(() => k.orgs.revokeInvitation(as(owner), org.id, third.id), 'invitation_not_found');
    await expectGatewayError(() => k.orgs.revokeInvitation(as(owner), org.id, first.id), 'invitation_not_found');
    k.advance(8 * 86_400_000);
    expect((await k.orgs.listInvitations(as(owner), org.id)).data).toEqual([expect.objectContaining({ id: second.id, status: 'expired' })]);
  });

  it('preview and accept: the link token lets the invited address join once; another address, expiry and used links are refused', async () => {
    const { k, org, owner, as } = await team();
    const bob = await k.user('bob');
    const eve = await k.user('eve');
    await k.orgs.invite(as(owner), org.id, { email: 'Bob@Example.com', role: 'admin' });
    const token = k.mails.at(-1)?.token ?? '';
    expect(await k.orgs.previewInvitation(k.session(eve), { token })).toEqual({
      organization: { id: org.id, name: 'Team' }, email: 'Bob@Example.com', role: 'admin', invited_by: 'owner@example.com', expires_at: expect.any(String), status: 'pending',
    });
    await expectGatewayError(() => k.orgs.acceptInvitation(k.session(eve), { token }), 'invitation_email_mismatch');
    await expectGatewayError(() => k.orgs.acceptInvitation(k.session(bob), { token: 'x'.repeat(43) }), 'invitation_not_found', 'token');
    await expectGatewayError(() => k.orgs.acceptInvitation(k.session(bob), { token, more: 1 }), 'invalid_request');
    const bobKey = { userId: bob.id, memberId: bob.id, apiKeyId: randomUUID() };
    expect(await k.orgs.acceptInvitation(bobKey, { token })).toMatchObject({ id: org.id, role: 'admin', personal: false });
    await expectGatewayError(() => k.orgs.acceptInvitation(k.session(bob), { token }), 'invitation_not_found');
    expect((await k.orgs.previewInvitation(k.session(bob), { token })).status).toBe('accepted');
    expect((await k.orgs.list(k.session(bob))).data.map((o) => o.id)).toEqual([bob.id, org.id]);

    await expectGatewayError(() => k.orgs.invite(as(owner), org.id, { email: 'bob@example.com' }), 'already_member');
    await k.orgs.invite(as(owner), org.id, { email: 'eve@example.com' });
    const late = k.mails.at(-1)?.token ?? '';
    k.advance(7 * 86_400_000);
    await expectGatewayError(() => k.orgs.acceptInvitation(k.session(eve), { token: late }), 'invitation_expired');
    expect((await k.orgs.previewInvitation(k.session(eve), { token: late })).status).toBe('expired');
    await expectGatewayError(() => k.orgs.get(k.session(eve, org.id), org.id), 'organization_not_found');
  });

  it('a failed mail revokes the invitation it made and reports the failure', async () => {
    const { k, org, owner, as } = await team();
    const store = k.store;
    const before = (await store.listInvitations(org.id)).length;
    // The kit's mailer pushes to `mails`: make that throw, as a failed SMTP send would.
    Object.assign(k.mails, { push: () => { throw new Error('smtp down'); } });
    await expect(k.orgs.invite(as(owner), org.id, { email: 'z@example.com' })).rejects.toThrow('smtp down');
    expect((await store.listInvitations(org.id)).length).toBe(before);
  });
});
