import { GatewayError } from '../../errors/gateway-error.js';
import { INVITATION_TTL_MS, type InvitationRecord, type MemberRole } from '../../model/organization.js';
import type { InvitationMailer } from '../../ports/invitation-mailer.js';
import type { OrganizationStore } from '../../ports/organization-store.js';
import type { UserStore } from '../../ports/stores.js';
import type { Clock, IdGenerator } from '../../ports/system.js';
import { isUuid } from '../../util/uuid.js';
import type { AuthContext } from '../auth-context.js';
import { hashSessionSecret, looksLikeSessionSecret, newSessionSecret } from '../sessions/session-secrets.js';
import { invitationTokenSchema, inviteSchema } from './organization-schemas.js';
import { invitationStatus, toInvitationView, toOrganizationView, type InvitationPreviewView, type InvitationView, type OrganizationView } from './organization-views.js';
import { insufficientRole, memberOf } from './role-check.js';

function invitationNotFound(param: string): GatewayError {
  return new GatewayError('invitation_not_found', 'This invitation is unknown, was revoked or was already accepted.', { param });
}

function alreadyMember(): GatewayError {
  return new GatewayError('already_member', 'This person is already a member of the organization.', { param: 'email' });
}

/**
 * Invitations by e-mail link (ManageOrganizations' half for them). The link's token is 256 random bits,
 * base64url, stored only as its SHA-256 (like a sign-in link's), valid INVITATION_TTL_MS and accepted once.
 * The caller's role in the organization is checked by ManageOrganizations before.
 */
export class OrganizationInvitations {
  constructor(
    private readonly store: OrganizationStore,
    private readonly users: UserStore,
    private readonly mailer: InvitationMailer,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  private async emailOf(userId: string): Promise<string> {
    return (await this.users.findById(userId))?.email ?? '';
  }

  /** Creates the invitation (replacing a pending one of the address) and mails its link; a failed mail revokes it again. */
  async invite(auth: AuthContext, role: MemberRole, organizationId: string, body: unknown, isPersonal: () => Promise<boolean>): Promise<InvitationView> {
    const parsed = inviteSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const invitedRole = parsed.data.role ?? 'member';
    if (role !== 'owner' && invitedRole !== 'member') throw insufficientRole('owner', role);
    if (await isPersonal()) throw new GatewayError('personal_organization', 'A personal organization takes no invitations: create an organization to share credits.');
    const email = parsed.data.email.trim();
    const members = await this.store.listMembers(organizationId);
    if (members.some((m) => m.email.toLowerCase() === email.toLowerCase())) throw alreadyMember();
    const org = await this.store.findById(organizationId);
    if (!org) throw new GatewayError('organization_not_found', `No organization with id '${organizationId}' has you as a member.`, { param: 'organization_id' });
    const inviter = memberOf(auth);
    const now = this.clock.now();
    const token = newSessionSecret();
    const invitation: InvitationRecord = {
      id: this.ids.uuid(),
      organizationId,
      email,
      role: invitedRole,
      tokenHash: hashSessionSecret(token),
      invitedBy: inviter,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      acceptedAt: null,
      acceptedBy: null,
      revokedAt: null,
    };
    const saved = await this.store.createInvitation(invitation);
    const inviterEmail = await this.emailOf(inviter);
    try {
      await this.mailer.send({ to: email, organizationName: org.name, invitedBy: inviterEmail, role: invitedRole, token, expiresAt: saved.expiresAt });
    } catch (err) {
      await this.store.revokeInvitation(organizationId, saved.id, this.clock.now());
      throw err;
    }
    return toInvitationView(saved, inviterEmail, now);
  }

  /** Pending and expired ones, newest first. */
  async list(organizationId: string): Promise<InvitationView[]> {
    const now = this.clock.now();
    const invitations = await this.store.listInvitations(organizationId);
    const emails = new Map<string, string>();
    for (const id of new Set(invitations.map((i) => i.invitedBy))) emails.set(id, await this.emailOf(id));
    return invitations.map((i) => toInvitationView(i, emails.get(i.invitedBy) ?? '', now));
  }

  async revoke(organizationId: string, invitationId: string): Promise<void> {
    const revoked = isUuid(invitationId) && (await this.store.revokeInvitation(organizationId, invitationId.toLowerCase(), this.clock.now()));
    if (!revoked) throw invitationNotFound('invitation_id');
  }

  private async byToken(body: unknown): Promise<InvitationRecord> {
    const parsed = invitationTokenSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const token = parsed.data.token;
    const invitation = looksLikeSessionSecret(token) ? await this.store.findInvitationByTokenHash(hashSessionSecret(token)) : null;
    if (!invitation) throw invitationNotFound('token');
    return invitation;
  }

  async preview(body: unknown): Promise<InvitationPreviewView> {
    const i = await this.byToken(body);
    const org = await this.store.findById(i.organizationId);
    if (!org) throw invitationNotFound('token');
    return {
      organization: { id: org.id, name: org.name },
      email: i.email,
      role: i.role,
      invited_by: await this.emailOf(i.invitedBy),
      expires_at: i.expiresAt.toISOString(),
      status: invitationStatus(i, this.clock.now()),
    };
  }

  /** Unknown, revoked or used: invitation_not_found; another e-mail: invitation_email_mismatch; expired: invitation_expired. */
  async accept(userId: string, body: unknown): Promise<OrganizationView> {
    const i = await this.byToken(body);
    if (i.acceptedAt || i.revokedAt) throw invitationNotFound('token');
    const email = await this.emailOf(userId);
    if (email.toLowerCase() !== i.email.toLowerCase()) {
      throw new GatewayError('invitation_email_mismatch', 'This invitation was sent to another e-mail address: sign in as that address to accept it.', { param: 'token' });
    }
    const now = this.clock.now();
    const result = await this.store.acceptInvitation(i.id, userId, now);
    switch (result.outcome) {
      case 'accepted':
        return toOrganizationView(result.organization, result.organization.role);
      case 'expired':
        throw new GatewayError('invitation_expired', 'This invitation link has expired: ask for a new one.', { param: 'token' });
      case 'already_member':
        throw alreadyMember();
      case 'not_found':
        throw invitationNotFound('token');
    }
  }
}
