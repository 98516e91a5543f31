import { NO_KEY_CONTROLS, type ApiKeyPatch, type ApiKeyRecord, type BudgetPeriod, type KeyControls, type KeyStore, type NewApiKey } from '@gengate/core';
import { withCaps } from './pg-errors.js';
import { toSafeInt, type Queryable } from './queryable.js';

interface Row {
  id: string;
  user_id: string;
  member_id: string;
  name: string;
  secret_hash: string;
  mask: string;
  rate_limit_per_minute: number | null;
  rate_limit_per_hour: number | null;
  rate_limit_per_day: number | null;
  ip_whitelist: string[];
  /** bigint: a string from pg. */
  spend_limit_micro: string | null;
  budget_period: BudgetPeriod;
  soft_threshold_percent: number | null;
  allowed_models: string[] | null;
  allowed_providers: string[] | null;
  allowed_modalities: string[] | null;
  max_concurrent_tasks: number | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const toKey = (r: Row): ApiKeyRecord => ({
  id: r.id,
  userId: r.user_id,
  memberId: r.member_id,
  name: r.name,
  secretHash: r.secret_hash,
  mask: r.mask,
  limits: { perMinute: r.rate_limit_per_minute, perHour: r.rate_limit_per_hour, perDay: r.rate_limit_per_day },
  ipWhitelist: r.ip_whitelist,
  controls: {
    spendLimitMicro: r.spend_limit_micro === null ? null : toSafeInt(r.spend_limit_micro),
    budgetPeriod: r.budget_period,
    softThresholdPercent: r.soft_threshold_percent,
    allowedModels: r.allowed_models,
    allowedProviders: r.allowed_providers,
    allowedModalities: r.allowed_modalities,
    maxConcurrentTasks: r.max_concurrent_tasks,
  },
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

/** The controls' columns, in the insert's order ($10 to $16). */
const controlValues = (c: KeyControls): unknown[] => [
  c.spendLimitMicro,
  c.budgetPeriod,
  c.softThresholdPercent,
  c.allowedModels && [...c.allowedModels],
  c.allowedProviders && [...c.allowedProviders],
  c.allowedModalities && [...c.allowedModalities],
  c.maxConcurrentTasks,
];

const ACTIVE_OF_USER = 'id = $1 and user_id = $2 and revoked_at is null';

/** The statements, built once per schema (createPgStores). */
export const keySql = (schema: string) => ({
  table: `${schema}.api_keys`,
  insert: `insert into ${schema}.api_keys (id, user_id, name, secret_hash, mask, rate_limit_per_minute, rate_limit_per_hour, rate_limit_per_day, ip_whitelist,
           spend_limit_micro, budget_period, soft_threshold_percent, allowed_models, allowed_providers, allowed_modalities, max_concurrent_tasks, member_id)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) returning *`,
  activeByHash: `select * from ${schema}.api_keys where secret_hash = $1 and revoked_at is null`,
  activeForUser: `select * from ${schema}.api_keys where ${ACTIVE_OF_USER}`,
  listActiveForUser: `select * from ${schema}.api_keys where user_id = $1 and revoked_at is null order by created_at desc, id`,
  countActiveForUser: `select count(*)::int as n from ${schema}.api_keys where user_id = $1 and revoked_at is null`,
  revoke: `with opened as (insert into ${schema}.accounts (user_id) values ($2) on conflict do nothing returning user_id),
            account as (select user_id from ${schema}.accounts where user_id = $2 for update)
       update ${schema}.api_keys set revoked_at = now()
       where ${ACTIVE_OF_USER} and (select count(*) from account) + (select count(*) from opened) >= 0`,
  lockActive: `select 1 from ${schema}.api_keys where id = $1 and revoked_at is null for share`,
  touchLastUsed: `update ${schema}.api_keys set last_used_at = $2 where id = $1`,
});
export type KeySql = ReturnType<typeof keySql>;

export class PgKeyStore implements KeyStore {
  constructor(
    private readonly db: Queryable,
    private readonly sql: KeySql,
  ) {}

  async insert(k: NewApiKey): Promise<ApiKeyRecord> {
    const { rows } = await withCaps(
      this.db.query<Row>(
        this.sql.insert,
        [k.id, k.userId, k.name, k.secretHash, k.mask, k.limits.perMinute, k.limits.perHour, k.limits.perDay, [...k.ipWhitelist], ...controlValues({ ...NO_KEY_CONTROLS, ...k.controls }), k.memberId ?? null],
      ),
    );
    return toKey(rows[0] as Row);
  }

  async findActiveByHash(hash: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.db.query<Row>(this.sql.activeByHash, [hash]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  async findActiveForUser(id: string, userId: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.db.query<Row>(this.sql.activeForUser, [id, userId]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  async listActiveForUser(userId: string): Promise<readonly ApiKeyRecord[]> {
    const { rows } = await this.db.query<Row>(this.sql.listActiveForUser, [userId]);
    return rows.map(toKey);
  }

  async countActiveForUser(userId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(this.sql.countActiveForUser, [userId]);
    return rows[0]?.n ?? 0;
  }

  async update(id: string, userId: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null> {
    const sets: string[] = [];
    const values: unknown[] = [id, userId];
    const set = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (patch.name !== undefined) set('name', patch.name);
    if (patch.limits?.perMinute !== undefined) set('rate_limit_per_minute', patch.limits.perMinute);
    if (patch.limits?.perHour !== undefined) set('rate_limit_per_hour', patch.limits.perHour);
    if (patch.limits?.perDay !== undefined) set('rate_limit_per_day', patch.limits.perDay);
    if (patch.ipWhitelist !== undefined) set('ip_whitelist', [...patch.ipWhitelist]);
    const c = patch.controls ?? {};
    if (c.spendLimitMicro !== undefined) set('spend_limit_micro', c.spendLimitMicro);
    if (c.budgetPeriod !== undefined) set('budget_period', c.budgetPeriod);
    if (c.softThresholdPercent !== undefined) set('soft_threshold_percent', c.softThresholdPercent);
    if (c.allowedModels !== undefined) set('allowed_models', c.allowedModels && [...c.allowedModels]);
    if (c.allowedProviders !== undefined) set('allowed_providers', c.allowedProviders && [...c.allowedProviders]);
    if (c.allowedModalities !== undefined) set('allowed_modalities', c.allowedModalities && [...c.allowedModalities]);
    if (c.maxConcurrentTasks !== undefined) set('max_concurrent_tasks', c.maxConcurrentTasks);
    if (sets.length === 0) return this.findActiveForUser(id, userId);
    const { rows } = await this.db.query<Row>(`update ${this.sql.table} set ${sets.join(', ')} where ${ACTIVE_OF_USER} returning *`, values);
    return rows[0] ? toKey(rows[0]) : null;
  }

  /**
   * Takes the user's account row lock first, as a submission does (gengate_submit_task): a submission
   * in flight either commits before the revocation, or sees it and is refused.
   */
  async revoke(id: string, userId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(this.sql.revoke, [id, userId]);
    return (rowCount ?? 0) > 0;
  }

  async lockActive(id: string): Promise<boolean> {
    const { rows } = await this.db.query(this.sql.lockActive, [id]);
    return rows.length > 0;
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.db.query(this.sql.touchLastUsed, [id, at]);
  }
}
