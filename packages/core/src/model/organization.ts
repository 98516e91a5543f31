import type { BudgetPeriod } from './api-key.js';

/**
 * Organizations (docs/organizations.md). An organization owns a balance, API keys and tasks; people are
 * its members, each with one role. Every user has a personal organization whose id is the user's own id
 * (created with the user, one member: its owner), so an account id and a personal organization id are the
 * same value and every balance, key and task written before organizations existed already belongs to the
 * right one. The money tables' `user_id` columns (and the domain's `userId` of a task, hold, key or ledger
 * entry) hold the owning organization's id.
 */
export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;
/**
 * owner: billing (top-ups, alerts, transactions) and members (roles, removal, any invitation);
 * admin: every key of the organization, key budgets, member spend limits, inviting members;
 * member: their own keys, within the spend limit an owner or admin set for them.
 */
export type MemberRole = (typeof MEMBER_ROLES)[number];

export interface OrganizationRecord {
  readonly id: string;
  readonly name: string;
  /** A user's personal organization (id = the user's id): one member, no invitations. */
  readonly personal: boolean;
  readonly createdAt: Date;
}

/** One person's membership of one organization. */
export interface MembershipRecord {
  readonly organizationId: string;
  readonly userId: string;
  readonly email: string;
  readonly role: MemberRole;
  /** Credits (held + charged, over every key of the member and their own dashboard runs) per period; null = none. */
  readonly spendLimitMicro: number | null;
  readonly budgetPeriod: BudgetPeriod;
  readonly createdAt: Date;
}

export interface MembershipPatch {
  readonly role?: MemberRole;
  readonly spendLimitMicro?: number | null;
  readonly budgetPeriod?: BudgetPeriod;
}

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface InvitationRecord {
  readonly id: string;
  readonly organizationId: string;
  /** Who may accept it: the signed-in user with this e-mail address (compared case-insensitively). */
  readonly email: string;
  readonly role: MemberRole;
  /** SHA-256 hex of the link's token; the token itself is only in the e-mail. */
  readonly tokenHash: string;
  readonly invitedBy: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly acceptedAt: Date | null;
  readonly acceptedBy: string | null;
  readonly revokedAt: Date | null;
}

/** How long an invitation link stays valid. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
