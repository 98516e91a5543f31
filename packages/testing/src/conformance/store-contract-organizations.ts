import { randomUUID } from 'node:crypto';
import { INVITATION_TTL_MS, type InvitationRecord, type OrganizationStore, type UserRecord } from '@gengate/core';
import { describe, expect, it } from 'vitest';
import { hex, type StoreFixtures } from './store-fixtures.js';

/** The OrganizationStore contract (packages/core/src/ports/organization-store.ts, docs/organizations.md). */
export function describeOrganizationsContract(f: StoreFixtures): void {
  const { stores, newUser } = f;
  const orgs = (): OrganizationStore => {
    const store = f.organizations();
    if (!store) throw new Error("this harness gives no organization store (give one, or skip 'organizations')");
    return store;
  };

  async function newOrg(owner: UserRecord, name = `Org ${hex(4)}`) {
    return orgs().create({ id: randomUUID(), name, ownerUserId: owner.id, at: new Date() });
  }

  function invitation(organizationId: string, invitedBy: string, patch: Partial<InvitationRecord> = {}): InvitationRecord {
    const now = new Date();
    return {
      id: randomUUID(),
      organizationId,
      email: `invitee-${hex(4)}@example.com`,
      role: 'member',
      tokenHash: hex(32),
      invitedBy,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      acceptedAt: null,
      acceptedBy: null,
      revokedAt: null,
      ...patch,
    };
  }

  describe.skipIf(f.skip.has('organizations'))('organizations', () => {
    it('a new user has a personal organization with its own id, named by its e-mail, the user its one owner', async () => {
      const user = await newUser();
      const org = await orgs().findById(user.id);
      expect(org).toMatchObject({ id: user.id, name: user.email, personal: true });
      expect(await orgs().listForUser(user.id)).toEqual([expect.objectContaining({ id: user.id, personal: true, role: 'owner' })]);
      expect(await orgs().listMembers(user.id)).toEqual([expect.objectContaining({ organizationId: user.id, userId: user.id, email: user.email, role: 'owner', spendLimitMicro: null })]);
      expect(await orgs().findById(randomUUID())).toBeNull();
    });

    it('create makes the creator its one owner; listForUser lists the personal one first, then by name; rename renames', async () => {
      const user = await newUser();
      const b = await newOrg(user, 'Beta team');
      const a = await newOrg(user, 'Alpha team');
      expect(a).toMatchObject({ name: 'Alpha team', personal: false, role: 'owner' });
      expect((await orgs().listForUser(user.id)).map((o) => o.id)).toEqual([user.id, a.id, b.id]);
      expect(await orgs().listMembers(a.id)).toEqual([expect.objectContaining({ userId: user.id, role: 'owner' })]);
      expect(await orgs().rename(a.id, 'Zeta team')).toMatchObject({ id: a.id, name: 'Zeta team' });
      expect((await orgs().listForUser(user.id)).map((o) => o.id)).toEqual([user.id, b.id, a.id]);
      expect(await orgs().rename(randomUUID(), 'x')).toBeNull();
      expect(await stores().ledger.getBalance(a.id)).toEqual({ balanceMicro: 0, heldMicro: 0 });
    });

    it('membership and updateMember: role and spend limit change; unknown member: not_found', async () => {
      const owner = await newUser();
      const other = await newUser();
      const org = await newOrg(owner);
      expect(await orgs().membership(org.id, other.id)).toBeNull();
      const inv = await orgs().createInvitation(invitation(org.id, owner.id, { email: other.email, role: 'member' }));
      expect(await orgs().acceptInvitation(inv.id, other.id, new Date())).toMatchObject({ outcome: 'accepted', organization: { id: org.id, role: 'member' } });
      expect(await orgs().membership(org.id, other.id)).toMatchObject({ role: 'member', email: other.email, spendLimitMicro: null, budgetPeriod: 'month' });
      const changed = await orgs().updateMember(org.id, other.id, { role: 'admin', spendLimitMicro: 5_000_000, budgetPeriod: 'week' });
      expect(changed).toMatchObject({ outcome: 'ok', member: { role: 'admin', spendLimitMicro: 5_000_000, budgetPeriod: 'week' } });
      expect(await orgs().updateMember(org.id, other.id, { spendLimitMicro: null })).toMatchObject({ outcome: 'ok', member: { role: 'admin', spendLimitMicro: null, budgetPeriod: 'week' } });
      expect(await orgs().updateMember(org.id, randomUUID(), { role: 'member' })).toEqual({ outcome: 'not_found' });
    });

    it('the last owner cannot be demoted or removed; with a second owner one can go; removal revokes the member keys there', async () => {
      const owner = await newUser();
      const second = await newUser();
      const org = await newOrg(owner);
      expect(await orgs().updateMember(org.id, owner.id, { role: 'admin' })).toEqual({ outcome: 'last_owner' });
      expect(await orgs().removeMember(org.id, owner.id, new Date())).toEqual({ outcome: 'last_owner' });
      const inv = await orgs().createInvitation(invitation(org.id, owner.id, { email: second.email, role: 'owner' }));
      await orgs().acceptInvitation(inv.id, second.id, new Date());
      const key = await stores().keys.insert({ ...f.keyFor(org.id), memberId: second.id });
      const ownKey = await stores().keys.insert(f.keyFor(org.id));
      expect(key.memberId).toBe(second.id);
      expect(ownKey.memberId).toBe(org.id);
      expect(await orgs().updateMember(org.id, owner.id, { role: 'admin' })).toMatchObject({ outcome: 'ok', member: { role: 'admin' } });
      expect(await orgs().removeMember(org.id, second.id, new Date())).toEqual({ outcome: 'last_owner' });
      expect(await orgs().updateMember(org.id, owner.id, { role: 'owner' })).toMatchObject({ outcome: 'ok' });
      expect(await orgs().removeMember(org.id, second.id, new Date())).toEqual({ outcome: 'ok', member: null });
      expect(await orgs().membership(org.id, second.id)).toBeNull();
      expect(await stores().keys.findActiveForUser(key.id, org.id)).toBeNull();
      expect(await stores().keys.findActiveForUser(ownKey.id, org.id)).not.toBeNull();
      expect(await orgs().removeMember(org.id, second.id, new Date())).toEqual({ outcome: 'not_found' });
    });

    it('two concurrent demotions of the two owners: exactly one succeeds', async () => {
      const a = await newUser();
      const b = await newUser();
      const org = await newOrg(a);
      const inv = await orgs().createInvitation(invitation(org.id, a.id, { email: b.email, role: 'owner' }));
      await orgs().acceptInvitation(inv.id, b.id, new Date());
      const results = await Promise.all([orgs().updateMember(org.id, a.id, { role: 'member' }), orgs().updateMember(org.id, b.id, { role: 'admin' })]);
      expect(results.map((r) => r.outcome).sort()).toEqual(['last_owner', 'ok']);
      expect((await orgs().listMembers(org.id)).filter((m) => m.role === 'owner')).toHaveLength(1);
      const removals = await Promise.all([orgs().removeMember(org.id, a.id, new Date()), orgs().removeMember(org.id, b.id, new Date())]);
      expect(removals.filter((r) => r.outcome === 'ok').length).toBeLessThanOrEqual(1);
      expect((await orgs().listMembers(org.id)).filter((m) => m.role === 'owner')).toHaveLength(1);
    });

    it('invitations: inviting again replaces the pending one; list is newest first without accepted or revoked ones; revoke once', async () => {
      const owner = await newUser();
      const org = await newOrg(owner);
      const first = await orgs().createInvitation(invitation(org.id, owner.id, { email: 'Same@Example.com', createdAt: new Date(Date.now() - 1000) }));
      const other = await orgs().createInvitation(invitation(org.id, owner.id, { createdAt: new Date(Date.now() - 500) }));
      const second = await orgs().createInvitation(invitation(org.id, owner.id, { email: 'same@example.com', role: 'admin' }));
      expect((await orgs().listInvitations(org.id)).map((i) => i.id)).toEqual([second.id, other.id]);
      expect((await orgs().findInvitationByTokenHash(first.tokenHash))?.revokedAt).toBeInstanceOf(Date);
      expect(await orgs().findInvitationByTokenHash(second.tokenHash)).toMatchObject({ id: second.id, role: 'admin', email: 'same@example.com', acceptedAt: null, revokedAt: null });
      expect(await orgs().findInvitationByTokenHash(hex(32))).toBeNull();
      expect(await orgs().revokeInvitation(randomUUID(), other.id, new Date())).toBe(false);
      expect(await orgs().revokeInvitation(org.id, other.id, new Date())).toBe(true);
      expect(await orgs().revokeInvitation(org.id, other.id, new Date())).toBe(false);
      expect((await orgs().listInvitations(org.id)).map((i) => i.id)).toEqual([second.id]);
    });

    it('acceptInvitation: once; revoked: not_found; expired: expired (and still listed); a member already: already_member', async () => {
      const owner = await newUser();
      const invitee = await newUser();
      const org = await newOrg(owner);
      const inv = await orgs().createInvitation(invitation(org.id, owner.id, { email: invitee.email, role: 'admin' }));
      const both = await Promise.all([orgs().acceptInvitation(inv.id, invitee.id, new Date()), orgs().acceptInvitation(inv.id, invitee.id, new Date())]);
      expect(both.map((r) => r.outcome).sort()).toEqual(['accepted', 'not_found']);
      expect(await orgs().findInvitationByTokenHash(inv.tokenHash)).toMatchObject({ acceptedBy: invitee.id });
      expect(await orgs().membership(org.id, invitee.id)).toMatchObject({ role: 'admin' });
      expect(await orgs().listInvitations(org.id)).toEqual([]);

      const again = await orgs().createInvitation(invitation(org.id, owner.id, { email: invitee.email }));
      expect(await orgs().acceptInvitation(again.id, invitee.id, new Date())).toEqual({ outcome: 'already_member' });
      const revoked = await orgs().createInvitation(invitation(org.id, owner.id));
      await orgs().revokeInvitation(org.id, revoked.id, new Date());
      const late = await newUser();
      expect(await orgs().acceptInvitation(revoked.id, late.id, new Date())).toEqual({ outcome: 'not_found' });
      const past = new Date(Date.now() - INVITATION_TTL_MS - 1000);
      const expired = await orgs().createInvitation(invitation(org.id, owner.id, { email: late.email, createdAt: past, expiresAt: new Date(past.getTime() + INVITATION_TTL_MS) }));
      expect(await orgs().acceptInvitation(expired.id, late.id, new Date())).toEqual({ outcome: 'expired' });
      expect(await orgs().membership(org.id, late.id)).toBeNull();
      expect((await orgs().listInvitations(org.id)).map((i) => i.id)).toContain(expired.id);
      expect(await orgs().acceptInvitation(randomUUID(), late.id, new Date())).toEqual({ outcome: 'not_found' });
    });
  });
}
