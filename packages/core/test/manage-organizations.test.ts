import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requireRole, roleOf } from '../src/services/organizations/role-check.js';
import { expectGatewayError, organizationKit } from './support/organization-kit.js';

describe('ManageOrganizations: organizations', () => {
  it('create makes the caller owner; list gives the personal one first, then by name; get and rename (owner only)', async () => {
    const k = organizationKit();
    const alice = await k.user('alice');
    const me = k.session(alice);
    const zed = await k.orgs.create(me, { name: '  Zed team ' });
    const acme = await k.orgs.create(me, { name: 'Acme' });
    expect(zed).toMatchObject({ name: 'Zed team', personal: false, role: 'owner' });
    expect(typeof zed.created_at).toBe('string');
    expect((await k.orgs.list(me)).data.map((o) => [o.name, o.personal, o.role])).toEqual([
      ['alice@example.com', true, 'owner'],
      ['Acme', false, 'owner'],
      ['Zed team', false, 'owner'],
    ]);
    expect(await k.orgs.get(me, acme.id)).toEqual(acme);
    expect(await k.orgs.rename(k.session(alice, acme.id), acme.id, { name: 'Acme video' })).toMatchObject({ id: acme.id, name: 'Acme video', role: 'owner' });
  });

  it('bad bodies are invalid_request naming the field, and change nothing', async () => {
    const k = organizationKit();
    const alice = await k.user();
    const me = k.session(alice);
    const before = k.db.organizations.size;
    await expectGatewayError(() => k.orgs.create(me, { name: '' }), 'invalid_request', 'name');
    await expectGatewayError(() => k.orgs.create(me, { name: 'x'.repeat(201) }), 'invalid_request', 'name');
    await expectGatewayError(() => k.orgs.create(me, { name: 'ok', extra: 1 }), 'invalid_request', 'extra');
    await expectGatewayError(() => k.orgs.create(me, null), 'invalid_request');
    expect(k.db.organizations.size).toBe(before);
    const org = await k.orgs.create(me, { name: 'Team' });
    await expectGatewayError(() => k.orgs.rename(me, org.id, { name: 5 }), 'invalid_request', 'name');
    await expectGatewayError(() => k.orgs.updateMember(me, org.id, alice.id, { spend_limit: -1 }), 'invalid_request', 'spend_limit');
    await expectGatewayError(() => k.orgs.updateMember(me, org.id, alice.id, { role: 'boss' }), 'invalid_request', 'role');
    await expectGatewayError(() => k.orgs.invite(me, org.id, { email: 'not-an-address' }), 'invalid_request', 'email');
    expect((await k.orgs.get(me, org.id)).name).toBe('Team');
    expect(k.mails).toHaveLength(0);
  });

  it('a non-member, an unknown id or an API key naming another organization: organization_not_found', async () => {
    const k = organizationKit();
    const alice = await k.user();
    const bob = await k.user();
    const org = await k.orgs.create(k.session(alice), { name: 'Team' });
    await expectGatewayError(() => k.orgs.get(k.session(bob), org.id), 'organization_not_found', 'organization_id');
    await expectGatewayError(() => k.orgs.listMembers(k.session(bob), org.id), 'organization_not_found');
    await expectGatewayError(() => k.orgs.get(k.session(alice), randomUUID()), 'organization_not_found');
    await expectGatewayError(() => k.orgs.get(k.session(alice), 'nope'), 'organization_not_found');
    const key = { userId: alice.id, memberId: alice.id, apiKeyId: randomUUID() };
    await expectGatewayError(() => k.orgs.get(key, org.id), 'organization_not_found');
    expect((await k.orgs.list(key)).data.map((o) => o.id)).toEqual([alice.id]);
    const orgKey = { userId: org.id, memberId: alice.id, apiKeyId: randomUUID() };
    expect((await k.orgs.list(orgKey)).data).toEqual([expect.objectContaining({ id: org.id, role: 'owner' })]);
  });

  it('renaming: admin and member get insufficient_role naming owner', async () => {
    const k = organizationKit();
    const [owner, admin, member] = [await k.user(), await k.user(), await k.user()];
    const org = await k.orgs.create(k.session(owner), { name: 'Team' });
    await k.join(k.session(owner, org.id), org.id, admin, 'admin');
    await k.join(k.session(owner, org.id), org.id, member, 'member');
    for (const u of [admin, member]) {
      await expect(k.orgs.rename(k.session(u, org.id), org.id, { name: 'Mine' })).rejects.toMatchObject({ type: 'insufficient_role', message: expect.stringContaining("'owner'") });
    }
    expect((await k.orgs.get(k.session(member, org.id), org.id)).name).toBe('Team');
  });
});

describe('ManageOrganizations: role check for other use cases', () => {
  it('requireRole names the least role allowed; roleOf is the role in the current organization; a personal owner costs no read', async () => {
    const k = organizationKit();
    const [owner, member] = [await k.user(), await k.user()];
    const org = await k.orgs.create(k.session(owner), { name: 'Team' });
    await k.join(k.session(owner, org.id), org.id, member, 'member');
    const store = k.store;
    expect(await roleOf(store, k.session(member, org.id))).toBe('member');
    expect(await roleOf(store, k.session(owner, org.id))).toBe('owner');
    expect(await roleOf(store, { userId: owner.id, apiKeyId: null })).toBe('owner');
    await expect(requireRole(store, k.session(member, org.id), org.id, ['owner', 'admin'])).rejects.toMatchObject({ type: 'insufficient_role', message: expect.stringContaining("'admin'") });
    await expect(requireRole(store, k.session(member, org.id), org.id, ['owner'])).rejects.toMatchObject({ type: 'insufficient_role', message: expect.stringContaining("'owner'") });
    expect(await requireRole(store, k.session(member, org.id), org.id, ['owner', 'admin', 'member'])).toBe('member');
    await expect(requireRole(store, { userId: member.id, memberId: member.id, apiKeyId: randomUUID() }, org.id, ['member'])).rejects.toMatchObject({ type: 'organization_not_found' });
    await k.orgs.removeMember(k.session(member, org.id), org.id, member.id);
    await expect(roleOf(store, k.session(member, org.id))).rejects.toMatchObject({ type: 'organization_not_found' });
  });
});

describe('Authenticate: a key acts as its member', () => {
  it("an organization key's AuthContext names its member (their role applies, not an owner's); a personal key's leaves it absent", async () => {
    const k = organizationKit();
    const [owner, member] = [await k.user(), await k.user()];
    const org = await k.orgs.create(k.session(owner), { name: 'Team' });
    await k.join(k.session(owner, org.id), org.id, member, 'member');
    const created = await k.gengate.keys.create({ userId: org.id, memberId: member.id, apiKeyId: null }, { name: 'team' });
    expect((await k.scope.keys.listActiveForUser(org.id)).map((key) => key.memberId)).toEqual([member.id]);
    const auth = await k.gengate.authenticate.execute(created.key, null);
    expect(auth).toMatchObject({ userId: org.id, memberId: member.id, apiKeyId: created.id });
    expect(await roleOf(k.store, auth)).toBe('member');
    await expectGatewayError(() => k.orgs.rename(auth, org.id, { name: 'x' }), 'insufficient_role');
    const personal = await k.gengate.keys.create(k.session(owner), { name: 'mine' });
    const personalAuth = await k.gengate.authenticate.execute(personal.key, null);
    expect(personalAuth.memberId).toBeUndefined();
    expect(await roleOf(k.store, personalAuth)).toBe('owner');
  });
});
