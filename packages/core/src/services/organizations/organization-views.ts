import type { BudgetPeriod } from '../../model/api-key.js';
import type { InvitationRecord, InvitationStatus, MemberRole, MembershipRecord, OrganizationRecord } from '../../model/organization.js';
import { microToCredits } from '../../util/money.js';

/** An organization as the API shows it: `role` is the caller's role in it. */
export interface OrganizationView {
  id: string;
  name: string;
  personal: boolean;
  role: MemberRole;
  created_at: string;
}

/** A member as the API shows it; `spend_limit` in credits (null: none). */
export interface MemberView {
  user_id: string;
  email: string;
  role: MemberRole;
  spend_limit: number | null;
  budget_period: BudgetPeriod;
  joined_at: string;
}

export interface InvitationView {
  id: string;
  email: string;
  role: MemberRole;
  status: InvitationStatus;
  /** The inviting member's e-mail address. */
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** What an invitation link offers (POST /invitations/preview). */
export interface InvitationPreviewView {
  organization: { id: string; name: string };
  email: string;
  role: MemberRole;
  invited_by: string;
  expires_at: string;
  status: InvitationStatus;
}

export function toOrganizationView(org: OrganizationRecord, role: MemberRole): OrganizationView {
  return { id: org.id, name: org.name, personal: org.personal, role, created_at: org.createdAt.toISOString() };
}

export function toMemberView(m: MembershipRecord): MemberView {
  return {
    user_id: m.userId,
    email: m.email,
    role: m.role,
    spend_limit: m.spendLimitMicro === null ? null : microToCredits(m.spendLimitMicro),
    budget_period: m.budgetPeriod,
    joined_at: m.createdAt.toISOString(),
  };
}

/** Accepted, revoked, expired (unused past its expiry at `now`) or pending. */
export function invitationStatus(i: InvitationRecord, now: Date): InvitationStatus {
  if (i.acceptedAt) return 'accepted';
  if (i.revokedAt) return 'revoked';
  return i.expiresAt.getTime() <= now.getTime() ? 'expired' : 'pending';
}

export function toInvitationView(i: InvitationRecord, invitedByEmail: string, now: Date): InvitationView {
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    status: invitationStatus(i, now),
    invited_by: invitedByEmail,
    created_at: i.createdAt.toISOString(),
    expires_at: i.expiresAt.toISOString(),
    accepted_at: i.acceptedAt?.toISOString() ?? null,
  };
}
