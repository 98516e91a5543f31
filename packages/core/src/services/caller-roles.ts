import { inject, injectable } from 'inversify';
import type { MemberRole } from '../model/organization.js';
import type { OrganizationStore } from '../ports/organization-store.js';
import { TOKENS } from '../ports/tokens.js';
import type { AuthContext } from './auth-context.js';
import { memberOf, requireRole, roleOf } from './organizations/role-check.js';

/** The roles that see every key and task of the organization (a `member` sees only their own). */
export const MANAGER_ROLES: readonly MemberRole[] = ['owner', 'admin'];

/**
 * The role gates of the existing endpoints (docs/organizations.md, "What each endpoint needs"), over
 * the role check of role-check.ts, for the use cases and routes that know their caller. A caller whose
 * member is the organization itself (a personal organization: its id is its one member's, who owns it;
 * or an embedder's seam that knows no organizations) is its owner without a read, so the requests of
 * personal organizations cost no statement more than before organizations.
 */
@injectable()
export class CallerRoles {
  constructor(@inject(TOKENS.OrganizationStore) private readonly organizations: OrganizationStore) {}

  /** The user's role in the organization, or null when not a member: how the dashboard's session checks the organization it selects. */
  async roleIn(organizationId: string, userId: string): Promise<MemberRole | null> {
    if (organizationId === userId) return 'owner';
    return (await this.organizations.membership(organizationId, userId))?.role ?? null;
  }

  /** The caller's role in its organization (`auth.userId`); 404 organization_not_found when no longer a member. */
  of(auth: AuthContext): Promise<MemberRole> {
    return roleOf(this.organizations, auth);
  }

  /** The caller's role when it is one of `allowed`; else 403 insufficient_role naming the role needed (before anything is read or written). */
  require(auth: AuthContext, allowed: readonly MemberRole[]): Promise<MemberRole> {
    return requireRole(this.organizations, auth, auth.userId, allowed);
  }

  /** Whether the caller sees only their own keys, tasks and usage (role `member`); no read for a personal organization. */
  async seesOwnOnly(auth: AuthContext): Promise<boolean> {
    return memberOf(auth) !== auth.userId && (await this.of(auth)) === 'member';
  }
}
