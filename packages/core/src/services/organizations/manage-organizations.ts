import { inject, injectable } from 'inversify';
import { GatewayError } from '../../errors/gateway-error.js';
import { DEFAULT_SCHEDULING, type SchedulingOptions } from '../../execution/scheduling.js';
import type { MembershipPatch } from '../../model/organization.js';
import type { InvitationMailer } from '../../ports/invitation-mailer.js';
import type { OrganizationStore } from '../../ports/organization-store.js';
import type { KeyStore, TransactionScope, UnitOfWork } from '../../ports/stores.js';
import type { Clock, IdGenerator } from '../../ports/system.js';
import { TOKENS } from '../../ports/tokens.js';
import { creditsToMicro } from '../../util/money.js';
import { isUuid } from '../../util/uuid.js';
import type { AuthContext } from '../auth-context.js';
import { endRevokedKeyTasks } from '../end-revoked-key-tasks.js';
import { OrganizationInvitations } from './organization-invitations.js';
import { organizationNameSchema, updateMemberSchema } from './organization-schemas.js';
import { toMemberView, toOrganizationView, type InvitationPreviewView, type InvitationView, type MemberView, type OrganizationView } from './organization-views.js';
import { insufficientRole, memberOf, organizationNotFound, requireRole, roleIn } from './role-check.js';

function memberNotFound(userId: string): GatewayError {
  return new GatewayError('member_not_found', `No member with user id '${userId}' in this organization.`, { param: 'user_id' });
}

function lastOwner(): GatewayError {
  return new GatewayError('last_owner', 'An organization keeps at least one owner: make another member owner first.');
}

function personalOrganization(what: string): GatewayError {
  return new GatewayError('personal_organization', `A personal organization has one member, its owner: ${what}. Create an organization to share credits.`);
}

/**
 * The organization use cases (docs/organizations.md): organizations, their members and invitations, with
 * the role rules of the doc's tables. Every refusal changes nothing. The caller is `auth.memberId ??
 * auth.userId`; an API key acts in its own organization only.
 */
@injectable()
export class ManageOrganizations {
  private readonly invitations: OrganizationInvitations;

  constructor(
    @inject(TOKENS.OrganizationStore) private readonly store: OrganizationStore,
    // Only its user store is kept (e-mail addresses): the key store comes by its own token.
    @inject(TOKENS.Stores) stores: TransactionScope,
    @inject(TOKENS.KeyStore) private readonly keys: KeyStore,
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.InvitationMailer) mailer: InvitationMailer,
    @inject(TOKENS.Ids) private readonly ids: IdGenerator,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Scheduling) private readonly scheduling: SchedulingOptions = DEFAULT_SCHEDULING,
  ) {
    this.invitations = new OrganizationInvitations(store, stores.users, mailer, ids, clock);
  }

  /** The caller's organizations, personal first, then by name; with an API key, its organization only. */
  async list(auth: AuthContext): Promise<{ data: OrganizationView[] }> {
    if (auth.apiKeyId !== null) return { data: [await this.get(auth, auth.userId)] };
    const orgs = await this.store.listForUser(memberOf(auth));
    return { data: orgs.map((o) => toOrganizationView(o, o.role)) };
  }

  /** A new organization with the caller as its one owner and a zero balance. */
  async create(auth: AuthContext, body: unknown): Promise<OrganizationView> {
    const parsed = organizationNameSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const org = await this.store.create({ id: this.ids.uuid(), name: parsed.data.name, ownerUserId: memberOf(auth), at: this.clock.now() });
    return toOrganizationView(org, org.role);
  }

  async get(auth: AuthContext, organizationId: string): Promise<OrganizationView> {
    const role = await roleIn(this.store, auth, organizationId);
    const org = await this.store.findById(organizationId.toLowerCase());
    if (!org) throw organizationNotFound(organizationId);
    return toOrganizationView(org, role);
  }

  /** Owner only. */
  async rename(auth: AuthContext, organizationId: string, body: unknown): Promise<OrganizationView> {
    const role = await requireRole(this.store, auth, organizationId, ['owner']);
    const parsed = organizationNameSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const org = await this.store.rename(organizationId.toLowerCase(), parsed.data.name);
    if (!org) throw organizationNotFound(organizationId);
    return toOrganizationView(org, role);
  }

  async listMembers(auth: AuthContext, organizationId: string): Promise<{ data: MemberView[] }> {
    await roleIn(this.store, auth, organizationId);
    const members = await this.store.listMembers(organizationId.toLowerCase());
    return { data: members.map(toMemberView) };
  }

  /**
   * Role changes: owners. Spend limits: owners (anyone's), admins (of `member`s). Demoting the last owner:
   * last_owner; a role change in a personal organization: personal_organization.
   */
  async updateMember(auth: AuthContext, organizationId: string, userId: string, body: unknown): Promise<MemberView> {
    const role = await requireRole(this.store, auth, organizationId, ['owner', 'admin']);
    const parsed = updateMemberSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const b = parsed.data;
    const orgId = organizationId.toLowerCase();
    const target = isUuid(userId) ? await this.store.membership(orgId, userId.toLowerCase()) : null;
    if (!target) throw memberNotFound(userId);
    if (b.role !== undefined && role !== 'owner') throw insufficientRole('owner', role);
    if (role === 'admin' && target.role !== 'member') throw insufficientRole('owner', role);
    if (b.role !== undefined && b.role !== target.role && (await this.isPersonal(orgId))) throw personalOrganization('its role cannot change');
    const patch: MembershipPatch = {
      ...(b.role !== undefined ? { role: b.role } : {}),
      ...(b.spend_limit !== undefined ? { spendLimitMicro: b.spend_limit === null ? null : creditsToMicro(b.spend_limit) } : {}),
      ...(b.budget_period !== undefined ? { budgetPeriod: b.budget_period } : {}),
    };
    const change = await this.store.updateMember(orgId, target.userId, patch);
    if (change.outcome === 'not_found') throw memberNotFound(userId);
    if (change.outcome === 'last_owner') throw lastOwner();
    return toMemberView(change.member ?? target);
  }

  /**
   * Owners remove anyone, admins `member`s, anyone themselves (leaving). The member's keys in the
   * organization are revoked with the membership (one statement) and then, like ManageKeys.revoke, their
   * tasks not started yet fail and every process's key cache forgets them.
   */
  async removeMember(auth: AuthContext, organizationId: string, userId: string): Promise<void> {
    const role = await roleIn(this.store, auth, organizationId);
    const orgId = organizationId.toLowerCase();
    const target = isUuid(userId) ? await this.store.membership(orgId, userId.toLowerCase()) : null;
    const self = target !== null && target.userId === memberOf(auth);
    if (!self && role === 'member') throw insufficientRole(target?.role === 'member' ? 'admin' : 'owner', role);
    if (!target) throw memberNotFound(userId);
    if (!self && role === 'admin' && target.role !== 'member') throw insufficientRole('owner', role);
    if (await this.isPersonal(orgId)) throw personalOrganization('its owner cannot leave it');
    const keys = (await this.keys.listActiveForUser(orgId)).filter((k) => (k.memberId ?? k.userId) === target.userId);
    const at = this.clock.now();
    const change = await this.store.removeMember(orgId, target.userId, at);
    if (change.outcome === 'not_found') throw memberNotFound(userId);
    if (change.outcome === 'last_owner') throw lastOwner();
    if (keys.length === 0) return;
    await this.uow.run(async (tx) => {
      for (const k of keys) {
        // Already revoked by removeMember: this revoke changes no row, but is the path every key
        // cache learns a revocation by (CachedKeyStore forgets the key once the transaction commits).
        await tx.keys.revoke(k.id, orgId);
        await endRevokedKeyTasks(tx, orgId, k.id, this.scheduling, at);
      }
    });
  }

  /** Owners invite any role, admins `member`s; mails the link. */
  async invite(auth: AuthContext, organizationId: string, body: unknown): Promise<InvitationView> {
    const role = await requireRole(this.store, auth, organizationId, ['owner', 'admin']);
    return this.invitations.invite(auth, role, organizationId.toLowerCase(), body, () => this.isPersonal(organizationId.toLowerCase()));
  }

  async listInvitations(auth: AuthContext, organizationId: string): Promise<{ data: InvitationView[] }> {
    await requireRole(this.store, auth, organizationId, ['owner', 'admin']);
    return { data: await this.invitations.list(organizationId.toLowerCase()) };
  }

  async revokeInvitation(auth: AuthContext, organizationId: string, invitationId: string): Promise<void> {
    await requireRole(this.store, auth, organizationId, ['owner', 'admin']);
    await this.invitations.revoke(organizationId.toLowerCase(), invitationId);
  }

  /** What a link's token offers; any authenticated caller holding it. */
  previewInvitation(_auth: AuthContext, body: unknown): Promise<InvitationPreviewView> {
    return this.invitations.preview(body);
  }

  /** The caller (whose e-mail must be the invited one) joins with the invitation's role. */
  acceptInvitation(auth: AuthContext, body: unknown): Promise<OrganizationView> {
    return this.invitations.accept(memberOf(auth), body);
  }

  private async isPersonal(organizationId: string): Promise<boolean> {
    return (await this.store.findById(organizationId))?.personal ?? false;
  }
}
