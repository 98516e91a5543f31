import type { InvitationRecord, MembershipPatch, MembershipRecord, OrganizationRecord } from '../model/organization.js';
import type { InvitationAcceptance, MembershipChange, OrganizationStore, OrganizationWithRole } from '../ports/organization-store.js';
import { memberKey, type MemoryDatabase, type MemoryMember } from './memory-database.js';

/**
 * Organizations, members and invitations over a MemoryDatabase. Every method reads and writes without an
 * await in between, so each is atomic (the memory twin of the PostgreSQL store's row locks): two
 * concurrent demotions of the last two owners cannot both pass the at-least-one-owner check.
 */
export class MemoryOrganizationStore implements OrganizationStore {
  constructor(private readonly db: MemoryDatabase) {}

  private withEmail(m: MemoryMember): MembershipRecord {
    return { ...m, email: this.db.users.get(m.userId)?.email ?? '' };
  }

  private membersOf(organizationId: string): MemoryMember[] {
    return [...this.db.members.values()].filter((m) => m.organizationId === organizationId);
  }

  async create(org: { readonly id: string; readonly name: string; readonly ownerUserId: string; readonly at: Date }): Promise<OrganizationWithRole> {
    const rec: OrganizationRecord = { id: org.id, name: org.name, personal: false, createdAt: org.at };
    this.db.organizations.set(org.id, rec);
    this.db.members.set(memberKey(org.id, org.ownerUserId), {
      organizationId: org.id,
      userId: org.ownerUserId,
      role: 'owner',
      spendLimitMicro: null,
      budgetPeriod: 'month',
      createdAt: org.at,
    });
    this.db.accounts.add(org.id);
    return { ...rec, role: 'owner' };
  }

  async findById(id: string): Promise<OrganizationRecord | null> {
    return this.db.organizations.get(id) ?? null;
  }

  async rename(id: string, name: string): Promise<OrganizationRecord | null> {
    const org = this.db.organizations.get(id);
    if (!org) return null;
    const next = { ...org, name };
    this.db.organizations.set(id, next);
    return next;
  }

  async listForUser(userId: string): Promise<readonly OrganizationWithRole[]> {
    const out: OrganizationWithRole[] = [];
    for (const m of this.db.members.values()) {
      const org = m.userId === userId ? this.db.organizations.get(m.organizationId) : undefined;
      if (org) out.push({ ...org, role: m.role });
    }
    return out.sort((a, b) => Number(b.personal) - Number(a.personal) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  async membership(organizationId: string, userId: string): Promise<MembershipRecord | null> {
    const m = this.db.members.get(memberKey(organizationId, userId));
    return m ? this.withEmail(m) : null;
  }

  async listMembers(organizationId: string): Promise<readonly MembershipRecord[]> {
    return this.membersOf(organizationId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.userId.localeCompare(b.userId))
      .map((m) => this.withEmail(m));
  }

  /** True when removing or demoting `userId` would leave the organization without an owner. */
  private isLastOwner(organizationId: string, userId: string): boolean {
    const owners = this.membersOf(organizationId).filter((m) => m.role === 'owner');
    return owners.length === 1 && owners[0]?.userId === userId;
  }

  async updateMember(organizationId: string, userId: string, patch: MembershipPatch): Promise<MembershipChange> {
    const key = memberKey(organizationId, userId);
    const m = this.db.members.get(key);
    if (!m) return { outcome: 'not_found' };
    if (patch.role !== undefined && patch.role !== 'owner' && m.role === 'owner' && this.isLastOwner(organizationId, userId)) return { outcome: 'last_owner' };
    const next: MemoryMember = {
      ...m,
      ...(patch.role !== undefined ? { role: patch.role } : {}),
      ...(patch.spendLimitMicro !== undefined ? { spendLimitMicro: patch.spendLimitMicro } : {}),
      ...(patch.budgetPeriod !== undefined ? { budgetPeriod: patch.budgetPeriod } : {}),
    };
    this.db.members.set(key, next);
    return { outcome: 'ok', member: this.withEmail(next) };
  }

  async removeMember(organizationId: string, userId: string, at: Date): Promise<MembershipChange> {
    const key = memberKey(organizationId, userId);
    const m = this.db.members.get(key);
    if (!m) return { outcome: 'not_found' };
    if (m.role === 'owner' && this.isLastOwner(organizationId, userId)) return { outcome: 'last_owner' };
    this.db.members.delete(key);
    for (const k of this.db.keys.values()) {
      if (k.userId === organizationId && (k.memberId ?? k.userId) === userId && !k.revokedAt) this.db.keys.set(k.id, { ...k, revokedAt: at });
    }
    return { outcome: 'ok', member: null };
  }

  async createInvitation(invitation: InvitationRecord): Promise<InvitationRecord> {
    const email = invitation.email.toLowerCase();
    for (const i of this.db.invitations.values()) {
      if (i.organizationId === invitation.organizationId && i.email.toLowerCase() === email && !i.acceptedAt && !i.revokedAt) {
        this.db.invitations.set(i.id, { ...i, revokedAt: invitation.createdAt });
      }
    }
    this.db.invitations.set(invitation.id, invitation);
    return invitation;
  }

  async listInvitations(organizationId: string): Promise<readonly InvitationRecord[]> {
    return [...this.db.invitations.values()]
      .filter((i) => i.organizationId === organizationId && !i.acceptedAt && !i.revokedAt)
      .reverse()
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  async findInvitationByTokenHash(tokenHash: string): Promise<InvitationRecord | null> {
    return [...this.db.invitations.values()].find((i) => i.tokenHash === tokenHash) ?? null;
  }

  async revokeInvitation(organizationId: string, invitationId: string, at: Date): Promise<boolean> {
    const i = this.db.invitations.get(invitationId);
    if (!i || i.organizationId !== organizationId || i.acceptedAt || i.revokedAt) return false;
    this.db.invitations.set(invitationId, { ...i, revokedAt: at });
    return true;
  }

  async acceptInvitation(invitationId: string, userId: string, at: Date): Promise<InvitationAcceptance> {
    const i = this.db.invitations.get(invitationId);
    const org = i ? this.db.organizations.get(i.organizationId) : undefined;
    if (!i || !org || i.acceptedAt || i.revokedAt) return { outcome: 'not_found' };
    if (i.expiresAt.getTime() <= at.getTime()) return { outcome: 'expired' };
    if (this.db.members.has(memberKey(i.organizationId, userId))) return { outcome: 'already_member' };
    this.db.invitations.set(invitationId, { ...i, acceptedAt: at, acceptedBy: userId });
    this.db.members.set(memberKey(i.organizationId, userId), {
      organizationId: i.organizationId,
      userId,
      role: i.role,
      spendLimitMicro: null,
      budgetPeriod: 'month',
      createdAt: at,
    });
    return { outcome: 'accepted', organization: { ...org, role: i.role } };
  }
}
