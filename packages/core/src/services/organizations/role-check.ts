import { GatewayError } from '../../errors/gateway-error.js';
import type { MemberRole } from '../../model/organization.js';
import type { OrganizationStore } from '../../ports/organization-store.js';
import { isUuid } from '../../util/uuid.js';
import type { AuthContext } from '../auth-context.js';

/** The person calling: the key's member or the signed-in user (`auth.memberId`, absent = `auth.userId`). */
export function memberOf(auth: AuthContext): string {
  return auth.memberId ?? auth.userId;
}

export function organizationNotFound(organizationId: string): GatewayError {
  return new GatewayError('organization_not_found', `No organization with id '${organizationId}' has you as a member.`, { param: 'organization_id' });
}

/** The least role of `allowed` (owner > admin > member): the one an insufficient_role error names. */
function neededRole(allowed: readonly MemberRole[]): MemberRole {
  if (allowed.includes('member')) return 'member';
  return allowed.includes('admin') ? 'admin' : 'owner';
}

/** A refusal for a role (403 insufficient_role) naming the role needed; nothing changed. */
export function insufficientRole(needed: MemberRole, have: MemberRole): GatewayError {
  const which = needed === 'owner' ? 'an owner' : `an ${needed} or owner`;
  return new GatewayError('insufficient_role', `This needs the role '${needed}' (${which} of the organization); your role is '${have}'.`);
}

/**
 * The caller's role in `organizationId`, or organization_not_found when the caller may not act there: an
 * API key (auth.apiKeyId non-null) acts in its own organization only (auth.userId), and a caller who is
 * not a member gets the same answer as for an organization that does not exist. A personal organization's
 * owner calling in it (member = organization = auth.userId) is its owner without a read: every user owns
 * their personal organization, and only there does a member id equal an organization id.
 */
export async function roleIn(store: OrganizationStore, auth: AuthContext, organizationId: string): Promise<MemberRole> {
  if (!isUuid(organizationId)) throw organizationNotFound(organizationId);
  const id = organizationId.toLowerCase();
  if (auth.apiKeyId !== null && id !== auth.userId.toLowerCase()) throw organizationNotFound(organizationId);
  const member = memberOf(auth);
  if (member === id && member === auth.userId) return 'owner';
  const membership = await store.membership(id, member);
  if (!membership) throw organizationNotFound(organizationId);
  return membership.role;
}

/**
 * The caller's role in its current organization (`auth.userId`: the key's, or the one the dashboard's
 * session selected). Throws organization_not_found when the caller is not (or no longer) a member of it.
 * Costs no read for a personal organization's owner (see `roleIn`).
 */
export function roleOf(store: OrganizationStore, auth: AuthContext): Promise<MemberRole> {
  return roleIn(store, auth, auth.userId);
}

/**
 * Checks that the caller may act in `organizationId` with one of the `allowed` roles and returns its role.
 * An API key naming another organization than its own, or a caller who is not a member:
 * `404 organization_not_found`. A role not allowed: `403 insufficient_role` naming the least role that is.
 */
export async function requireRole(store: OrganizationStore, auth: AuthContext, organizationId: string, allowed: readonly MemberRole[]): Promise<MemberRole> {
  const role = await roleIn(store, auth, organizationId);
  if (!allowed.includes(role)) throw insufficientRole(neededRole(allowed), role);
  return role;
}
