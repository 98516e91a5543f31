import type { AccountDirectory, FailureGroup, Modality, Page, TaskCount, TaskStatus, UserRole, UserSummary } from '@gengate/core';
import { toSafeInt, type Queryable } from './queryable.js';
import { checkSchemaName } from './schema.js';

interface SummaryRow {
  id: string;
  email: string;
  role: UserRole;
  created_at: Date;
  balance_micro: string | null;
  held_micro: string | null;
  granted_micro: string;
  active_keys: number;
  revoked_keys: number;
  tasks: number;
}

const summary = (schema: string) => `
  select u.id, u.email, u.role, u.created_at, a.balance_micro, a.held_micro,
    (select coalesce(sum(credits_micro), 0) from ${schema}.transactions t where t.user_id = u.id and t.payment_method = 'grant' and t.status = 'completed') as granted_micro,
    (select count(*)::int from ${schema}.api_keys k where k.user_id = u.id and k.revoked_at is null) as active_keys,
    (select count(*)::int from ${schema}.api_keys k where k.user_id = u.id and k.revoked_at is not null) as revoked_keys,
    (select count(*)::int from ${schema}.tasks x where x.user_id = u.id) as tasks
  from ${schema}.users u left join ${schema}.account_totals a on a.user_id = u.id`;

const SEARCH = `where lower(u.email) like $1 or u.id::text like $1`;

const directorySql = (schema: string) => ({
  roleOf: `select role from ${schema}.users where id = $1`,
  setRole: `update ${schema}.users set role = $2 where lower(email) = lower($1) returning id, email, role`,
  search: `${summary(schema)} ${SEARCH} order by u.created_at desc, u.id desc limit $2 offset $3`,
  countSearch: `select count(*)::int as n from ${schema}.users u ${SEARCH}`,
  findUser: `${summary(schema)} where u.id = $1`,
  recentFailures: `select model_id, count(*)::int as failures, max(finished_at) as last_at,
         (array_agg(error_message order by finished_at desc))[1] as last_message
       from ${schema}.tasks where status = 'fail' and finished_at >= $1
       group by model_id order by failures desc, model_id limit $2`,
  unfinishedTaskCounts: `select modality, status, case when status = 'waiting' then admitted end as admitted, count(*)::int as count
       from ${schema}.tasks where status in ('waiting', 'generating') group by 1, 2, 3 order by 1, 2, 3`,
});

const toSummary = (r: SummaryRow): UserSummary => ({
  id: r.id,
  email: r.email,
  role: r.role,
  createdAt: r.created_at,
  balanceMicro: toSafeInt(r.balance_micro ?? 0),
  heldMicro: toSafeInt(r.held_micro ?? 0),
  grantedMicro: toSafeInt(r.granted_micro),
  activeKeys: r.active_keys,
  revokedKeys: r.revoked_keys,
  tasks: r.tasks,
});

/** Roles (users.role) and the operator's views, in SQL on gengate's schema (`schema`: the name runMigrations used). */
export class PgAccountDirectory implements AccountDirectory {
  private readonly sql: ReturnType<typeof directorySql>;

  constructor(
    private readonly db: Queryable,
    schema: string,
  ) {
    this.sql = directorySql(checkSchemaName(schema));
  }

  async roleOf(userId: string): Promise<UserRole | null> {
    const { rows } = await this.db.query<{ role: UserRole }>(this.sql.roleOf, [userId]);
    return rows[0]?.role ?? null;
  }

  async setRole(email: string, role: UserRole): Promise<{ id: string; email: string; role: UserRole } | null> {
    const { rows } = await this.db.query<{ id: string; email: string; role: UserRole }>(this.sql.setRole, [email, role]);
    return rows[0] ?? null;
  }

  async searchUsers(search: string, page: number, perPage: number): Promise<Page<UserSummary>> {
    const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const { rows } = await this.db.query<SummaryRow>(this.sql.search, [pattern, perPage, (page - 1) * perPage]);
    const count = await this.db.query<{ n: number }>(this.sql.countSearch, [pattern]);
    return { items: rows.map(toSummary), total: count.rows[0]?.n ?? 0 };
  }

  async findUser(userId: string): Promise<UserSummary | null> {
    const { rows } = await this.db.query<SummaryRow>(this.sql.findUser, [userId]);
    return rows[0] ? toSummary(rows[0]) : null;
  }

  async recentFailures(since: Date, limit: number): Promise<readonly FailureGroup[]> {
    const { rows } = await this.db.query<{ model_id: string; failures: number; last_at: Date; last_message: string | null }>(
      this.sql.recentFailures,
      [since, limit],
    );
    return rows.map((r) => ({ modelId: r.model_id, failures: r.failures, lastAt: r.last_at, lastMessage: r.last_message ?? '' }));
  }

  async unfinishedTaskCounts(): Promise<readonly TaskCount[]> {
    const { rows } = await this.db.query<{ modality: Modality; status: TaskStatus; admitted: boolean | null; count: number }>(
      this.sql.unfinishedTaskCounts,
    );
    return rows;
  }
}
