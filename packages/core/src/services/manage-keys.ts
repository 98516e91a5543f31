import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { GatewayError } from '../errors/gateway-error.js';
import { DEFAULT_SCHEDULING, type SchedulingOptions } from '../execution/scheduling.js';
import { endRevokedKeyTasks } from './end-revoked-key-tasks.js';
import { keyControlsOf, NO_KEY_CONTROLS, type ApiKeyLimits, type ApiKeyRecord, type ApiKeyView, type CreatedApiKeyView, type KeyControls, type KeyUsage } from '../model/api-key.js';
import type { Clock, IdGenerator } from '../ports/system.js';
import type { ApiKeyPatch, KeyStore, TransactionScope, UnitOfWork } from '../ports/stores.js';
import { createApiKeySchema, updateApiKeySchema, type UpdateApiKeyInput } from '../keys/api-key-schemas.js';
import { budgetPeriodStart, budgetResetsAt } from '../keys/key-budget-period.js';
import { creditsToMicro, microToCredits } from '../util/money.js';
import { generateApiKeySecret, hashApiKeySecret, maskApiKeySecret } from '../keys/api-key-secret.js';
import { isUuid } from '../util/uuid.js';
import type { AuthContext } from './auth-context.js';
import { CallerRoles } from './caller-roles.js';
import { insufficientRole, memberOf } from './organizations/role-check.js';
import { NO_ORGANIZATION_STORE } from '../ports/no-organization-store.js';

/** The key as listed: its settings and, when `usage` is given, what it used this period (else zero). */
export function toApiKeyView(k: ApiKeyRecord, usage: KeyUsage | null = null, at: Date = new Date()): ApiKeyView {
  const c = keyControlsOf(k);
  const spent = usage?.spentMicro ?? 0;
  return {
    id: k.id,
    name: k.name,
    key: k.mask,
    member_id: k.memberId ?? k.userId,
    rate_limit_per_minute: k.limits.perMinute,
    rate_limit_per_hour: k.limits.perHour,
    rate_limit_per_day: k.limits.perDay,
    ip_whitelist: [...k.ipWhitelist],
    spend_limit: c.spendLimitMicro === null ? null : microToCredits(c.spendLimitMicro),
    budget_period: c.budgetPeriod,
    soft_threshold_percent: c.softThresholdPercent,
    allowed_models: c.allowedModels ? [...c.allowedModels] : null,
    allowed_providers: c.allowedProviders ? [...c.allowedProviders] : null,
    allowed_modalities: c.allowedModalities ? [...c.allowedModalities] : null,
    max_concurrent_tasks: c.maxConcurrentTasks,
    spent: microToCredits(spent),
    remaining: c.spendLimitMicro === null ? null : microToCredits(Math.max(0, c.spendLimitMicro - spent)),
    resets_at: budgetResetsAt(c.budgetPeriod, at)?.toISOString() ?? null,
    concurrent_tasks: usage?.activeTasks ?? 0,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
  };
}

/** Creates the key row and returns it with its secret (shown once). */
export async function issueApiKey(
  keys: KeyStore,
  ids: IdGenerator,
  userId: string,
  input: { name: string; limits: ApiKeyLimits; ipWhitelist: readonly string[]; controls?: KeyControls; memberId?: string },
): Promise<{ record: ApiKeyRecord; secret: string }> {
  const secret = generateApiKeySecret();
  const record = await keys.insert({
    id: ids.uuid(),
    userId,
    ...(input.memberId !== undefined ? { memberId: input.memberId } : {}),
    name: input.name,
    secretHash: hashApiKeySecret(secret),
    mask: maskApiKeySecret(secret),
    limits: input.limits,
    ipWhitelist: input.ipWhitelist,
    ...(input.controls ? { controls: input.controls } : {}),
  });
  return { record, secret };
}

async function usageOf(tx: TransactionScope, k: ApiKeyRecord, at: Date): Promise<KeyUsage> {
  const periodStart = budgetPeriodStart(keyControlsOf(k).budgetPeriod, at);
  return { periodStart, ...(await tx.keyBudgets.usage(k.id, periodStart)) };
}

/** The controls a create or update body sets (absent fields untouched; null removes a limit). */
function controlsPatch(b: Omit<UpdateApiKeyInput, 'name'>): Partial<KeyControls> {
  const c: { -readonly [K in keyof KeyControls]?: KeyControls[K] } = {};
  if (b.spend_limit !== undefined) c.spendLimitMicro = b.spend_limit === null ? null : creditsToMicro(b.spend_limit);
  if (b.budget_period !== undefined) c.budgetPeriod = b.budget_period;
  if (b.soft_threshold_percent !== undefined) c.softThresholdPercent = b.soft_threshold_percent;
  if (b.allowed_models !== undefined) c.allowedModels = b.allowed_models;
  if (b.allowed_providers !== undefined) c.allowedProviders = b.allowed_providers;
  if (b.allowed_modalities !== undefined) c.allowedModalities = b.allowed_modalities;
  if (b.max_concurrent_tasks !== undefined) c.maxConcurrentTasks = b.max_concurrent_tasks;
  return c;
}

export { REVOKED_MESSAGE } from './end-revoked-key-tasks.js';

function notFound(id: string): GatewayError {
  return new GatewayError('api_key_not_found', `No API key with id '${id}'.`, { param: 'id' });
}

/** The fields of PUT /api-keys/{id} a `member` may change on their own key (docs/organizations.md). */
const MEMBER_EDITABLE: ReadonlySet<string> = new Set(['name', 'ip_whitelist']);

const ownerOf = (k: ApiKeyRecord): string => k.memberId ?? k.userId;

/**
 * The /api-keys use cases, on the keys of the caller's organization (`auth.userId`). Owners and admins see
 * and change every key of it; a `member` lists, edits (name and IP whitelist only) and revokes only their
 * own (another member's key is a 404, as another organization's); a key created is the caller's.
 */
@injectable()
export class ManageKeys {
  constructor(
    @inject(TOKENS.KeyStore) private readonly keys: KeyStore,
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Ids) private readonly ids: IdGenerator,
    @inject(TOKENS.Scheduling) private readonly scheduling: SchedulingOptions = DEFAULT_SCHEDULING,
    @inject(TOKENS.Clock) private readonly clock: Clock = { now: () => new Date() },
    @inject(CallerRoles) private readonly roles: CallerRoles = new CallerRoles(NO_ORGANIZATION_STORE),
  ) {}

  /**
   * The key `id` of the caller's organization as the caller may change it: null when there is none, or it
   * is another member's and the caller's role is `member`. Personal organizations skip both reads.
   */
  private async visibleKey(auth: AuthContext, id: string): Promise<{ readonly ownOnly: boolean; readonly found: boolean }> {
    if (memberOf(auth) === auth.userId) return { ownOnly: false, found: true };
    const ownOnly = await this.roles.seesOwnOnly(auth);
    if (!ownOnly) return { ownOnly, found: true };
    const key = isUuid(id) ? await this.keys.findActiveForUser(id.toLowerCase(), auth.userId) : null;
    return { ownOnly, found: key !== null && ownerOf(key) === memberOf(auth) };
  }

  /** The keys as listed, with what each used in the period `at` falls in (read in one unit of work: one snapshot). */
  private views(keys: readonly ApiKeyRecord[], at: Date): Promise<ApiKeyView[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.uow.run(async (tx) => {
      const out: ApiKeyView[] = [];
      for (const k of keys) out.push(toApiKeyView(k, await usageOf(tx, k, at), at));
      return out;
    });
  }

  async create(auth: AuthContext, body: unknown): Promise<CreatedApiKeyView> {
    const parsed = createApiKeySchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const input = parsed.data;
    // The store refuses a key beyond MAX_KEYS_PER_USER (limit_exceeded), atomically with the insert.
    const { record, secret } = await issueApiKey(this.keys, this.ids, auth.userId, {
      name: input.name,
      limits: {
        perMinute: input.rate_limit_per_minute ?? null,
        perHour: input.rate_limit_per_hour ?? null,
        perDay: input.rate_limit_per_day ?? null,
      },
      ipWhitelist: input.ip_whitelist ?? [],
      controls: { ...NO_KEY_CONTROLS, ...controlsPatch(input) },
      // The key is its creator's (docs/organizations.md); absent in a personal organization = its owner.
      ...(auth.memberId !== undefined ? { memberId: auth.memberId } : {}),
    });
    return { id: record.id, name: record.name, key: secret, created_at: record.createdAt.toISOString() };
  }

  async list(auth: AuthContext): Promise<{ data: ApiKeyView[] }> {
    const all = await this.keys.listActiveForUser(auth.userId);
    const ownOnly = await this.roles.seesOwnOnly(auth);
    const keys = ownOnly ? all.filter((k) => ownerOf(k) === memberOf(auth)) : all;
    const at = this.clock.now();
    return { data: await this.views(keys, at) };
  }

  async update(auth: AuthContext, id: string, body: unknown): Promise<ApiKeyView> {
    const parsed = updateApiKeySchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const b = parsed.data;
    const visible = await this.visibleKey(auth, id);
    if (!visible.found) throw notFound(id);
    const forbidden = visible.ownOnly ? Object.keys(b).filter((f) => !MEMBER_EDITABLE.has(f)) : [];
    if (forbidden.length > 0) throw insufficientRole('admin', 'member'); // a member's own key: name and ip_whitelist only
    const limits: { -readonly [K in keyof ApiKeyLimits]?: ApiKeyLimits[K] } = {};
    if (b.rate_limit_per_minute !== undefined) limits.perMinute = b.rate_limit_per_minute;
    if (b.rate_limit_per_hour !== undefined) limits.perHour = b.rate_limit_per_hour;
    if (b.rate_limit_per_day !== undefined) limits.perDay = b.rate_limit_per_day;
    const patch: ApiKeyPatch = {
      ...(b.name !== undefined ? { name: b.name } : {}),
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
      ...(b.ip_whitelist !== undefined ? { ipWhitelist: b.ip_whitelist } : {}),
    };
    const controls = controlsPatch(b);
    if (Object.keys(controls).length > 0) Object.assign(patch, { controls });
    const updated = isUuid(id) ? await this.keys.update(id.toLowerCase(), auth.userId, patch) : null;
    if (!updated) throw notFound(id);
    const [view] = await this.views([updated], this.clock.now());
    if (!view) throw notFound(id);
    return view;
  }

  /**
   * Revokes the key at once, for every process (keys are never cached). In the same transaction, the
   * key's tasks that have not started generating end in `fail` and their holds are released; a run
   * request with this key still in flight fails when it reaches its commit (SubmitRun re-checks the key).
   */
  async revoke(auth: AuthContext, id: string): Promise<{ id: string; deleted: true; failed_task_ids: string[] }> {
    if (!(await this.visibleKey(auth, id)).found) throw notFound(id);
    const failed = await this.uow.run(async (tx) => {
      if (!isUuid(id) || !(await tx.keys.revoke(id.toLowerCase(), auth.userId))) throw notFound(id);
      return endRevokedKeyTasks(tx, auth.userId, id.toLowerCase(), this.scheduling, new Date());
    });
    return { id, deleted: true, failed_task_ids: [...failed] };
  }
}
