import type {
  BudgetPeriod,
  InvitationAcceptance,
  InvitationRecord,
  MemberRole,
  MembershipChange,
  MembershipPatch,
  MembershipRecord,
  OrganizationRecord,
  OrganizationStore,
  OrganizationWithRole,
} from '@gengate/core';
import type pg from 'pg';
import { toSafeInt, type Queryable } from './queryable.js';

interface OrgRow {
  id: string;
  name: string;
  personal: boolean;
  created_at: Date;
}
interface MemberRow {
  organization_id: string;
  user_id: string;
  email: string;
  role: MemberRole;
  spend_limit_micro: string | null;
  budget_period: BudgetPeriod;
  created_at: Date;
}
interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: MemberRole;
  token_hash: string;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  revoked_at: Date | null;
}

const toOrg = (r: OrgRow): OrganizationRecord => ({ id: r.id, name: r.name, personal: r.personal, createdAt: r.created_at });
const toMember = (r: MemberRow): MembershipRecord => ({
  organizationId: r.organization_id,
  userId: r.user_id,
  email: r.email,
  role: r.role,
  spendLimitMicro: r.spend_limit_micro === null ? null : toSafeInt(r.spend_limit_micro),
  budgetPeriod: r.budget_period,
  createdAt: r.created_at,
});
const toInvitation = (r: InvitationRow): InvitationRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  email: r.email,
  role: r.role,
  tokenHash: r.token_hash,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  acceptedAt: r.accepted_at,
  acceptedBy: r.accepted_by,
  revokedAt: r.revoked_at,
});

/** The statements, built once per schema. */
export const organizationSql = (s: string) => {
  const member = `select m.organization_id, m.user_id, u.email, m.role, m.spend_limit_micro, m.budget_period, m.created_at
    from ${s}.organization_members m join ${s}.users u on u.id = m.user_id`;
  return {
    insertOrg: `insert into ${s}.organizations (id, name, personal, created_at) values ($1, $2, false, $3) returning *`,
    insertMember: `insert into ${s}.organization_members (organization_id, user_id, role, created_at) values ($1, $2, $3, $4)`,
    openAccount: `insert into ${s}.accounts (user_id) values ($1) on conflict do nothing`,
    byId: `select * from ${s}.organizations where id = $1`,
    lockOrg: `select id from ${s}.organizations where id = $1 for update`,
    rename: `update ${s}.organizations set name = $2 where id = $1 returning *`,
    listForUser: `select o.*, m.role from ${s}.organizations o join ${s}.organization_members m on m.organization_id = o.id
      where m.user_id = $1 order by o.personal desc, o.name, o.id`,
    membership: `${member} where m.organization_id = $1 and m.user_id = $2`,
    listMembers: `${member} where m.organization_id = $1 order by m.created_at, m.user_id`,
    otherOwners: `select count(*)::int as n from ${s}.organization_members where organization_id = $1 and role = 'owner' and user_id <> $2`,
    updateMember: `update ${s}.organization_members set role = coalesce($3, role),
        spend_limit_micro = case when $4::boolean then $5::bigint else spend_limit_micro end, budget_period = coalesce($6, budget_period)
      where organization_id = $1 and user_id = $2`,
    deleteMember: `delete from ${s}.organization_members where organization_id = $1 and user_id = $2`,
    revokeMemberKeys: `update ${s}.api_keys set revoked_at = $3 where user_id = $1 and member_id = $2 and revoked_at is null`,
    revokePending: `update ${s}.organization_invitations set revoked_at = $3
      where organization_id = $1 and lower(email) = lower($2) and accepted_at is null and revoked_at is null`,
    insertInvitation: `insert into ${s}.organization_invitations (id, organization_id, email, role, token_hash, invited_by, created_at, expires_at)
      values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
    listInvitations: `select * from ${s}.organization_invitations where organization_id = $1 and accepted_at is null and revoked_at is null
      order by created_at desc, id`,
    byTokenHash: `select * from ${s}.organization_invitations where token_hash = $1`,
    revokeInvitation: `update ${s}.organization_invitations set revoked_at = $3
      where id = $2 and organization_id = $1 and accepted_at is null and revoked_at is null`,
    lockInvitation: `select * from ${s}.organization_invitations where id = $1 for update`,
    isMember: `select 1 from ${s}.organization_members where organization_id = $1 and user_id = $2`,
    accept: `update ${s}.organization_invitations set accepted_at = $2, accepted_by = $3 where id = $1`,
  };
};
export type OrganizationSql = ReturnType<typeof organizationSql>;

/**
 * OrganizationStore on migration 025's tables. Changes that must keep an invariant across rows run in one
 * transaction that first locks the organization's row (at least one owner; one pending invitation per
 * address) or the invitation's row (accepted once); later statements of the transaction then read what
 * every earlier holder of the lock committed (READ COMMITTED takes a new snapshot per statement).
 */
export class PgOrganizationStore implements OrganizationStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly sql: OrganizationSql,
  ) {}

  private async transaction<T>(fn: (db: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const result = await fn(client);
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  create(org: { readonly id: string; readonly name: string; readonly ownerUserId: string; readonly at: Date }): Promise<OrganizationWithRole> {
    return this.transaction(async (db) => {
      const { rows } = await db.query<OrgRow>(this.sql.insertOrg, [org.id, org.name, org.at]);
      await db.query(this.sql.insertMember, [org.id, org.ownerUserId, 'owner', org.at]);
      await db.query(this.sql.openAccount, [org.id]);
      return { ...toOrg(rows[0] as OrgRow), role: 'owner' as const };
    });
  }

  async findById(id: string): Promise<OrganizationRecord | null> {
    const { rows } = await this.pool.query<OrgRow>(this.sql.byId, [id]);
    return rows[0] ? toOrg(rows[0]) : null;
  }

  async rename(id: string, name: string): Promise<OrganizationRecord | null> {
    const { rows } = await this.pool.query<OrgRow>(this.sql.rename, [id, name]);
    return rows[0] ? toOrg(rows[0]) : null;
  }

  async listForUser(userId: string): Promise<readonly OrganizationWithRole[]> {
    const { rows } = await this.pool.query<OrgRow & { role: MemberRole }>(this.sql.listForUser, [userId]);
    return rows.map((r) => ({ ...toOrg(r), role: r.role }));
  }

  async membership(organizationId: string, userId: string): Promise<MembershipRecord | null> {
    const { rows } = await this.pool.query<MemberRow>(this.sql.membership, [organizationId, userId]);
    return rows[0] ? toMember(rows[0]) : null;
  }

  async listMembers(organizationId: string): Promise<readonly MembershipRecord[]> {
    const { rows } = await this.pool.query<MemberRow>(this.sql.listMembers, [organizationId]);
    return rows.map(toMember);
  }

  /** The member (after the organization's row is locked), or why the change is refused. */
  private async lockedMember(db: Queryable, organizationId: string, userId: string, losesOwner: (m: MembershipRecord) => boolean) {
    const locked = await db.query(this.sql.lockOrg, [organizationId]);
    if (locked.rows.length === 0) return { outcome: 'not_found' as const };
    const { rows } = await db.query<MemberRow>(this.sql.membership, [organizationId, userId]);
    if (!rows[0]) return { outcome: 'not_found' as const };
    const member = toMember(rows[0]);
    if (losesOwner(member)) {
      const others = await db.query<{ n: number }>(this.sql.otherOwners, [organizationId, userId]);
      if ((others.rows[0]?.n ?? 0) === 0) return { outcome: 'last_owner' as const };
    }
    return { outcome: 'ok' as const, member };
  }

  updateMember(organizationId: string, userId: string, patch: MembershipPatch): Promise<MembershipChange> {
    return this.transaction(async (db) => {
      const found = await this.lockedMember(db, organizationId, userId, (m) => m.role === 'owner' && patch.role !== undefined && patch.role !== 'owner');
      if (found.outcome !== 'ok') return found;
      await db.query(this.sql.updateMember, [
        organizationId,
        userId,
        patch.role ?? null,
        patch.spendLimitMicro !== undefined,
        patch.spendLimitMicro ?? null,
        patch.budgetPeriod ?? null,
      ]);
      const { rows } = await db.query<MemberRow>(this.sql.membership, [organizationId, userId]);
      return { outcome: 'ok', member: rows[0] ? toMember(rows[0]) : null };
    });
  }

  removeMember(organizationId: string, userId: string, at: Date): Promise<MembershipChange> {
    return this.transaction(async (db) => {
      const found = await this.lockedMember(db, organizationId, userId, (m) => m.role === 'owner');
      if (found.outcome !== 'ok') return found;
      await db.query(this.sql.deleteMember, [organizationId, userId]);
      await db.query(this.sql.revokeMemberKeys, [organizationId, userId, at]);
      return { outcome: 'ok', member: null };
    });
  }

  createInvitation(i: InvitationRecord): Promise<InvitationRecord> {
    return this.transaction(async (db) => {
      await db.query(this.sql.lockOrg, [i.organizationId]);
      await db.query(this.sql.revokePending, [i.organizationId, i.email, i.createdAt]);
      const { rows } = await db.query<InvitationRow>(this.sql.insertInvitation, [i.id, i.organizationId, i.email, i.role, i.tokenHash, i.invitedBy, i.createdAt, i.expiresAt]);
      return toInvitation(rows[0] as InvitationRow);
    });
  }

  async listInvitations(organizationId: string): Promise<readonly InvitationRecord[]> {
    const { rows } = await this.pool.query<InvitationRow>(this.sql.listInvitations, [organizationId]);
    return rows.map(toInvitation);
  }

  async findInvitationByTokenHash(tokenHash: string): Promise<InvitationRecord | null> {
    const { rows } = await this.pool.query<InvitationRow>(this.sql.byTokenHash, [tokenHash]);
    return rows[0] ? toInvitation(rows[0]) : null;
  }

  async revokeInvitation(organizationId: string, invitationId: string, at: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query(this.sql.revokeInvitation, [organizationId, invitationId, at]);
    return (rowCount ?? 0) > 0;
  }

  acceptInvitation(invitationId: string, userId: string, at: Date): Promise<InvitationAcceptance> {
    return this.transaction(async (db): Promise<InvitationAcceptance> => {
      const { rows } = await db.query<InvitationRow>(this.sql.lockInvitation, [invitationId]);
      const row = rows[0];
      if (!row || row.accepted_at || row.revoked_at) return { outcome: 'not_found' };
      if (row.expires_at.getTime() <= at.getTime()) return { outcome: 'expired' };
      const org = await db.query<OrgRow>(this.sql.byId, [row.organization_id]);
      if (!org.rows[0]) return { outcome: 'not_found' };
      if ((await db.query(this.sql.isMember, [row.organization_id, userId])).rows.length > 0) return { outcome: 'already_member' };
      await db.query(this.sql.insertMember, [row.organization_id, userId, row.role, at]);
      await db.query(this.sql.accept, [invitationId, at, userId]);
      return { outcome: 'accepted', organization: { ...toOrg(org.rows[0]), role: row.role } };
    });
  }
}
