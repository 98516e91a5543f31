import { inject, injectable, optional } from 'inversify';
import { GatewayError } from '../errors/gateway-error.js';
import type { MemberRole } from '../model/organization.js';
import type { OrganizationStore } from '../ports/organization-store.js';
import { TOKENS } from '../ports/tokens.js';
import type { AuthContext } from './auth-context.js';

/** The person behind a request: the key's member or the signed-in user (`memberId`, absent = `userId`). */
export const memberOf = (auth: Pick<AuthContext, 'userId' | 'memberId'>): string => auth.memberId ?? auth.userId;

/** The roles that may do everything a `member` may not: see every key and task of the organization. */
export const MANAGER_ROLES: readonly MemberRole[] = ['owner', 'admin'];

/**
 * The caller's role in the organization it acts on (`auth.userId`), for the role gates of the use cases
 * (docs/organizations.md, "What each endpoint needs"). A caller whose member is the organization itself
 * (a personal organization: its id is its one member's id, who owns it; or an embedder's seam that knows no
 * organizations) is its owner without a lookup, so the requests of personal organizations cost no statement
 * more than before organizations. Anyone else's role is read from the OrganizationStore.
 */
@injectable()
export class CallerRoles {
  constructor(@inject(TOKENS.OrganizationStore) @optional() private readonly organizations: OrganizationStore | undefined) {}

  /** The member's role in the organization; null when not a member (or no OrganizationStore is bound). */
  async roleIn(organizationId: string, userId: string): Promise<MemberRole | null> {
    if (organizationId === userId) return 'owner';
    const membership = this.organizations ? await this.organizations.membership(organizationId, userId) : null;
    return membership?.role ?? null;
  }

  /** The caller's role in its organization; 404 organization_not_found when the caller is no longer a member. */
  async of(auth: Pick<AuthContext, 'userId' | 'memberId'>): Promise<MemberRole> {
    const role = await this.roleIn(auth.userId, memberOf(auth));
    if (!role) throw new GatewayError('organization_not_found', `You are not a member of the organization '${auth.userId}'.`);
    return role;
  }

  /** The caller's role when it is one of `allowed`; else 403 insufficient_role naming the roles that may (nothing changed). */
  async require(auth: Pick<AuthContext, 'userId' | 'memberId'>, allowed: readonly MemberRole[], action: string): Promise<MemberRole> {
    const role = await this.of(auth);
    if (!allowed.includes(role)) throw insufficientRole(allowed, role, action);
    return role;
  }

  /** Whether the caller sees only their own keys, tasks and usage (role `member`); false for owners and admins. */
  async seesOwnOnly(auth: Pick<AuthContext, 'userId' | 'memberId'>): Promise<boolean> {
    return (await this.of(auth)) === 'member';
  }
}

/** 403 insufficient_role: `action` needs one of `allowed`, the caller is `role`. */
export function insufficientRole(allowed: readonly MemberRole[], role: MemberRole, action: string): GatewayError {
  const needed = allowed.length === 1 ? `the role ${allowed[0]}` : `the role ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}`;
  return new GatewayError('insufficient_role', `${action} needs ${needed} in this organization; yours is ${role}.`);
}
