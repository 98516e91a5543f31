import type { InvitationRecord, MemberRole, MembershipPatch, MembershipRecord, OrganizationRecord } from '../model/organization.js';

/** An organization with the caller's role in it. */
export interface OrganizationWithRole extends OrganizationRecord {
  readonly role: MemberRole;
}

/** The outcome of a change that must leave an organization with at least one owner. */
export type MembershipChange =
  | { readonly outcome: 'ok'; readonly member: MembershipRecord | null }
  | { readonly outcome: 'not_found' }
  | { readonly outcome: 'last_owner' };

export type InvitationAcceptance =
  | { readonly outcome: 'accepted'; readonly organization: OrganizationWithRole }
  | { readonly outcome: 'not_found' | 'expired' | 'already_member' };

/**
 * Organizations, their members and invitations (docs/organizations.md). Each method is atomic on its own
 * (the PostgreSQL store locks the organization's row where an invariant spans rows: at least one owner,
 * an invitation accepted once). Personal organizations are created with their user (UserStore.insert;
 * in PostgreSQL a trigger on `users`), never here.
 */
export interface OrganizationStore {
  /** A new (non-personal) organization with `ownerUserId` as its one owner and a zero balance. */
  create(org: { readonly id: string; readonly name: string; readonly ownerUserId: string; readonly at: Date }): Promise<OrganizationWithRole>;
  findById(id: string): Promise<OrganizationRecord | null>;
  rename(id: string, name: string): Promise<OrganizationRecord | null>;
  /** Every organization the user is a member of, personal first, then by name. */
  listForUser(userId: string): Promise<readonly OrganizationWithRole[]>;
  /** The user's membership of the organization; null when not a member (or no such organization). */
  membership(organizationId: string, userId: string): Promise<MembershipRecord | null>;
  listMembers(organizationId: string): Promise<readonly MembershipRecord[]>;
  /** Changes a member's role or spend limit; refuses to leave no owner. */
  updateMember(organizationId: string, userId: string, patch: MembershipPatch): Promise<MembershipChange>;
  /** Removes a member and revokes their keys in the organization (at `at`); refuses to leave no owner. */
  removeMember(organizationId: string, userId: string, at: Date): Promise<MembershipChange>;
  /** Inserts an invitation, revoking any pending one of the same organization and e-mail. */
  createInvitation(invitation: InvitationRecord): Promise<InvitationRecord>;
  /** Every invitation of the organization that is neither accepted nor revoked, newest first (expired ones included). */
  listInvitations(organizationId: string): Promise<readonly InvitationRecord[]>;
  findInvitationByTokenHash(tokenHash: string): Promise<InvitationRecord | null>;
  /** Marks a pending invitation revoked; false when it is not pending in this organization. */
  revokeInvitation(organizationId: string, invitationId: string, at: Date): Promise<boolean>;
  /** Accepts a pending, unexpired invitation for `userId` (whose e-mail the caller has checked): one membership, once. */
  acceptInvitation(invitationId: string, userId: string, at: Date): Promise<InvitationAcceptance>;
}
