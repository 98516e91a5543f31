/**
 * What a role may use, as the dashboard shows it (docs/organizations.md, "What each endpoint needs").
 * The API enforces the same rules and answers 403 insufficient_role; this only keeps the dashboard
 * from offering what would be refused.
 */
import type { OrgRole } from '../api/organization-types';

export interface Capabilities {
  /** The Billing page (balance alerts, and top-ups for owners). */
  billing: boolean;
  transactions: boolean;
  /** Rate limits and spend controls of keys (members change only their own keys' name and IP whitelist). */
  editKeyLimits: boolean;
  topup: boolean;
  editAlerts: boolean;
  rename: boolean;
  changeRoles: boolean;
  seeInvitations: boolean;
  /** The roles this caller may invite with (empty: may not invite). */
  inviteRoles: readonly OrgRole[];
}

export function capabilitiesOf(role: OrgRole, personal: boolean): Capabilities {
  const owner = role === 'owner';
  const admin = role === 'admin';
  return {
    billing: owner || admin,
    transactions: owner || admin,
    editKeyLimits: owner || admin,
    topup: owner,
    editAlerts: owner,
    rename: owner && !personal,
    changeRoles: owner && !personal,
    seeInvitations: (owner || admin) && !personal,
    inviteRoles: personal ? [] : owner ? ['member', 'admin', 'owner'] : admin ? ['member'] : [],
  };
}

/** May `role` set the spend limit of a member whose role is `target`? Owners: anyone; admins: members. */
export const canSetLimitOf = (role: OrgRole, target: OrgRole): boolean => role === 'owner' || (role === 'admin' && target === 'member');

/**
 * May `role` remove a member whose role is `target` (`self`: the caller)? Owners: anyone; admins:
 * members; anyone: themselves (leaving), except from a personal organization.
 */
export function canRemove(role: OrgRole, target: OrgRole, self: boolean, personal: boolean): boolean {
  if (personal) return false;
  if (self) return true;
  return role === 'owner' || (role === 'admin' && target === 'member');
}
