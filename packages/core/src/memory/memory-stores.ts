import { randomUUID } from 'node:crypto';
import { capExceeded, USER_CAPS } from '../errors/caps.js';
import { GatewayError } from '../errors/gateway-error.js';
import { NO_KEY_CONTROLS, type ApiKeyRecord } from '../model/api-key.js';
import type { BalanceAlertRecord, TransactionRecord } from '../model/billing.js';
import type { Modality } from '../model/modality.js';
import type { RouteAttempt } from '../model/routing.js';
import type { TaskRecord } from '../model/task.js';
import type { UpstreamMetadata } from '../ports/provider-adapter.js';
import type { UserRecord } from '../model/user.js';
import type {
  AccountBalance,
  AlertStore,
  ApiKeyPatch,
  BillingLedger,
  CreditEntry,
  IdempotencyStore,
  JobQueue,
  KeyBudgetMail,
  KeyStore,
  NewApiKey,
  NewTask,
  Page,
  ActiveTaskCounts,
  TaskListFilter,
  TaskStore,
  TaskSuccess,
  UserStore,
} from '../ports/stores.js';
import type { JsonObject, JsonValue } from '../util/json.js';
import { microCreditsToMicroUsd } from '../util/money.js';
import { memberKey, type MemoryDatabase } from './memory-database.js';

export class MemoryUserStore implements UserStore {
  constructor(private readonly db: MemoryDatabase) {}
  async insert(u: { id: string; email: string }): Promise<UserRecord> {
    const rec = { id: u.id, email: u.email, createdAt: new Date() };
    this.db.users.set(u.id, rec);
    // As migration 025's trigger: the user's personal organization (id = the user's id) and its owner.
    this.db.organizations.set(u.id, { id: u.id, name: u.email, personal: true, createdAt: rec.createdAt });
    this.db.members.set(memberKey(u.id, u.id), {
      organizationId: u.id,
      userId: u.id,
      role: 'owner',
      spendLimitMicro: null,
      budgetPeriod: 'month',
      createdAt: rec.createdAt,
    });
    return rec;
  }
  async findById(id: string) {
    return this.db.users.get(id) ?? null;
  }
  async findByEmail(email: string) {
    return [...this.db.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase()) ?? null;
  }
}

export class MemoryKeyStore implements KeyStore {
  constructor(private readonly db: MemoryDatabase) {}
  async insert(k: NewApiKey): Promise<ApiKeyRecord> {
    // Count and insert run without an await in between: atomic, like the PostgreSQL trigger.
    const active = [...this.db.keys.values()].filter((x) => x.userId === k.userId && !x.revokedAt).length;
    if (active >= USER_CAPS.api_keys) throw capExceeded('api_keys');
    const rec: ApiKeyRecord = { ...k, memberId: k.memberId ?? k.userId, controls: { ...NO_KEY_CONTROLS, ...k.controls }, createdAt: new Date(), lastUsedAt: null, revokedAt: null };
    this.db.keys.set(k.id, rec);
    return rec;
  }
  async findActiveByHash(hash: string) {
    return [...this.db.keys.values()].find((k) => k.secretHash === hash && !k.revokedAt) ?? null;
  }
  async findActiveForUser(id: string, userId: string) {
    const k = this.db.keys.get(id);
    return k && k.userId === userId && !k.revokedAt ? k : null;
  }
  async listActiveForUser(userId: string) {
    return [...this.db.keys.values()]
      .filter((k) => k.userId === userId && !k.revokedAt)
      .reverse() // insertion order breaks ties between keys created in the same millisecond
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }
  async countActiveForUser(userId: string) {
    return (await this.listActiveForUser(userId)).length;
  }
  async update(id: string, userId: string, patch: ApiKeyPatch) {
    const k = await this.findActiveForUser(id, userId);
    if (!k) return null;
    const next: ApiKeyRecord = {
      ...k,
      name: patch.name ?? k.name,
      limits: { ...k.limits, ...patch.limits },
      ipWhitelist: patch.ipWhitelist ?? k.ipWhitelist,
      controls: { ...NO_KEY_CONTROLS, ...k.controls, ...patch.controls },
    };
    this.db.keys.set(id, next);
    return next;
  }
  async revoke(id: string, userId: string) {
    const k = await this.findActiveForUser(id, userId);
    if (!k) return false;
    this.db.keys.set(id, { ...k, revokedAt: new Date() });
    return true;
  }
  async lockActive(id: string) {
    const k = this.db.keys.get(id);
    return k !== undefined && !k.revokedAt;
  }
  async touchLastUsed(id: string, at: Date) {
    const k = this.db.keys.get(id);
    if (k) this.db.keys.set(id, { ...k, lastUsedAt: at });
  }
}

export class MemoryTaskStore implements TaskStore {
  constructor(private readonly db: MemoryDatabase) {}
  private patch(id: string, fn: (t: TaskRecord) => TaskRecord | null): TaskRecord | null {
    const t = this.db.tasks.get(id);
    if (!t) return null;
    const next = fn(t);
    if (next) this.db.tasks.set(id, next);
    return next;
  }
  async insert(t: NewTask): Promise<TaskRecord> {
    const rec: TaskRecord = {
      ...t,
      status: 'waiting',
      chargedMicro: null,
      costMicro: null,
      reportedCostMicro: null,
      usage: null,
      upstreamMetadata: null,
      progress: null,
      pollSeq: 0,
      webhookPayload: null,
      outputs: [],
      warnings: [],
      errorMessage: null,
      upstreamHandle: null,
      attempts: 0,
      routeId: null,
      routeAttempts: [],
      createdAt: new Date(),
      startedAt: null,
      finishedAt: null,
    };
    this.db.tasks.set(t.id, rec);
    return rec;
  }
  async recordRouteAttempt(id: string, attempt: RouteAttempt): Promise<void> {
    this.patch(id, (t) => ({ ...t, routeAttempts: [...(t.routeAttempts ?? []), attempt], routeId: attempt.outcome === 'skipped' ? (t.routeId ?? null) : attempt.route }));
  }
  async findById(id: string) {
    return this.db.tasks.get(id) ?? null;
  }
  async listForUser(userId: string, filter: TaskListFilter, page: number, perPage: number): Promise<Page<TaskRecord>> {
    const any = <T>(list: readonly T[] | undefined, v: T) => !list || list.length === 0 || list.includes(v);
    const all = [...this.db.tasks.values()]
      .filter((t) => t.userId === userId && (filter.memberId === undefined || (t.memberId ?? t.userId) === filter.memberId) && any(filter.statuses, t.status) && any(filter.modelIds, t.modelId) && any(filter.modalities, t.modality))
      .reverse() // insertion order breaks ties between tasks created in the same millisecond
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return { items: all.slice((page - 1) * perPage, page * perPage), total: all.length };
  }
  async findForUser(id: string, userId: string) {
    const t = this.db.tasks.get(id);
    return t && t.userId === userId ? t : null;
  }
  async markGenerating(id: string, at: Date) {
    return this.patch(id, (t) =>
      t.status === 'waiting' || t.status === 'generating'
        ? { ...t, status: 'generating', attempts: t.attempts + 1, startedAt: t.startedAt ?? at }
        : null,
    );
  }
  async releaseClaim(id: string, claim: { readonly attempts: number; readonly at: Date }) {
    this.patch(id, (t) => {
      if (t.status !== 'generating' || t.attempts !== claim.attempts) return null;
      const started = t.startedAt?.getTime() === claim.at.getTime();
      return { ...t, attempts: t.attempts - 1, ...(started ? { status: 'waiting' as const, startedAt: null } : {}) };
    });
  }
  async saveUpstreamHandle(id: string, handle: TaskRecord['upstreamHandle'], startWarnings: TaskRecord['warnings'] = []) {
    this.patch(id, (t) => ({ ...t, upstreamHandle: handle, warnings: [...startWarnings], webhookPayload: null }));
  }
  async advanceCheck(id: string, current: number, progress: number | null) {
    return this.patch(id, (t) => (t.status === 'generating' && t.pollSeq === current ? { ...t, pollSeq: current + 1, progress: progress ?? t.progress } : null)) !== null;
  }
  async saveWebhookPayload(id: string, payload: JsonValue) {
    return this.patch(id, (t) => (t.status === 'generating' && t.webhookPayload === null ? { ...t, webhookPayload: payload } : null)) !== null;
  }
  async markSuccess(id: string, r: TaskSuccess) {
    return (
      this.patch(id, (t) =>
        t.status === 'generating'
          ? {
              ...t,
              status: 'success',
              outputs: r.outputs,
              warnings: r.warnings,
              chargedMicro: r.chargedMicro,
              costMicro: r.costMicro,
              reportedCostMicro: r.reportedCostMicro,
              usage: r.usage,
              upstreamMetadata: r.metadata,
              progress: null,
              admitted: false,
              finishedAt: r.at,
            }
          : null,
      ) !== null
    );
  }
  async markFail(id: string, message: string, at: Date, metadata?: UpstreamMetadata) {
    return (
      this.patch(id, (t) =>
        t.status === 'waiting' || t.status === 'generating'
          ? { ...t, status: 'fail', errorMessage: message, finishedAt: at, admitted: false, progress: null, upstreamMetadata: metadata ?? t.upstreamMetadata }
          : null,
      ) !== null
    );
  }
  async failWaitingForKey(apiKeyId: string, message: string, at: Date) {
    const ended = [...this.db.tasks.values()].filter((t) => t.apiKeyId === apiKeyId && t.status === 'waiting');
    for (const t of ended) await this.markFail(t.id, message, at);
    return ended.map((t) => ({ id: t.id, userId: t.userId, modality: t.modality }));
  }
  async listUnfinished(limit: number) {
    return [...this.db.tasks.values()].filter((t) => t.status === 'waiting' || t.status === 'generating').slice(0, limit);
  }
  private unfinishedOf(userId: string, modality: Modality): TaskRecord[] {
    return [...this.db.tasks.values()].filter((t) => t.userId === userId && t.modality === modality && (t.status === 'waiting' || t.status === 'generating'));
  }
  async activeCounts(userId: string, modality: Modality): Promise<ActiveTaskCounts> {
    const tasks = this.unfinishedOf(userId, modality);
    return { admitted: tasks.filter((t) => t.admitted).length, queued: tasks.filter((t) => !t.admitted).length };
  }
  async listOverdue(now: Date, deadlinesMs: Readonly<Record<Modality, number>>, marginMs: number, admittedGraceMs: number, limit: number) {
    return [...this.db.tasks.values()]
      .filter((t) => {
        const late = now.getTime() - deadlinesMs[t.modality] - marginMs;
        if (t.status === 'generating') return (t.startedAt ?? t.createdAt).getTime() < late;
        return t.status === 'waiting' && t.admitted && t.createdAt.getTime() < late - admittedGraceMs;
      })
      .slice(0, limit);
  }
  async listQueuedUsers(limit: number) {
    const pairs = new Map<string, { userId: string; modality: Modality }>();
    for (const t of this.db.tasks.values()) if (t.status === 'waiting' && !t.admitted) pairs.set(`${t.userId}/${t.modality}`, { userId: t.userId, modality: t.modality });
    return [...pairs.values()].slice(0, limit);
  }
  async admitQueued(userId: string, modality: Modality, slots: number) {
    const next = this.unfinishedOf(userId, modality)
      .filter((t) => !t.admitted && t.status === 'waiting')
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, Math.max(0, slots));
    for (const t of next) this.patch(t.id, (x) => ({ ...x, admitted: true }));
    return next.map((t) => t.id);
  }
}

export class MemoryBillingLedger implements BillingLedger {
  constructor(private readonly db: MemoryDatabase) {}
  async openAccount(userId: string) {
    this.db.accounts.add(userId);
  }
  async getBalance(userId: string): Promise<AccountBalance> {
    const balanceMicro = this.db.transactions
      .filter((t) => t.userId === userId && t.status === 'completed')
      .reduce((s, t) => s + t.creditsMicro, 0);
    const heldMicro = [...this.db.holds.values()]
      .filter((h) => h.userId === userId && h.state === 'held')
      .reduce((s, h) => s + h.amountMicro, 0);
    return { balanceMicro, heldMicro };
  }
  async lockAccount(): Promise<void> {
    // Memory units of work are serialized: nothing else runs meanwhile.
  }
  async hold(userId: string, taskId: string, amountMicro: number) {
    const b = await this.getBalance(userId);
    if (b.balanceMicro - b.heldMicro < amountMicro) {
      throw new GatewayError('insufficient_credits', 'The available balance cannot cover the price of this run; top up with POST /api/v1/billing/topup.');
    }
    this.db.holds.set(taskId, { userId, taskId, amountMicro, state: 'held' });
  }
  async settle(taskId: string, chargeMicro: number, description: string) {
    const h = this.db.holds.get(taskId);
    if (!h || h.state !== 'held') return null;
    this.db.holds.set(taskId, { ...h, state: 'settled' });
    const credits = Math.min(chargeMicro, h.amountMicro);
    const t = this.push({
      userId: h.userId,
      creditsMicro: -credits,
      amountMicroUsd: microCreditsToMicroUsd(credits),
      paymentMethod: 'usage',
      status: 'completed',
      description,
    }, taskId);
    return t;
  }
  async release(taskId: string) {
    const h = this.db.holds.get(taskId);
    if (h && h.state === 'held') this.db.holds.set(taskId, { ...h, state: 'released' });
  }
  async record(e: CreditEntry) {
    if (e.status === 'pending' && e.paymentMethod !== 'usage') {
      const pending = this.db.transactions.filter((t) => t.userId === e.userId && t.status === 'pending' && t.paymentMethod !== 'usage').length;
      if (pending >= USER_CAPS.pending_topups) throw capExceeded('pending_topups');
    }
    return this.push(e, null);
  }
  async complete(id: string) {
    return this.transition(id, ['pending', 'failed'], 'completed');
  }
  async fail(id: string) {
    return this.transition(id, ['pending'], 'failed');
  }
  private transition(id: string, from: readonly TransactionRecord['status'][], to: TransactionRecord['status']): TransactionRecord | null {
    const i = this.db.transactions.findIndex((t) => t.id === id && from.includes(t.status) && t.paymentMethod !== 'usage');
    const t = this.db.transactions[i];
    if (!t) return null;
    const done: TransactionRecord = { ...t, status: to };
    this.db.transactions[i] = done;
    return done;
  }
  async findTransaction(id: string) {
    return this.db.transactions.find((t) => t.id === id) ?? null;
  }
  async listTransactions(userId: string, page: number, perPage: number): Promise<Page<TransactionRecord>> {
    const all = this.db.transactions.filter((t) => t.userId === userId).reverse();
    return { items: all.slice((page - 1) * perPage, page * perPage), total: all.length };
  }
  private push(e: CreditEntry, taskId: string | null): TransactionRecord {
    const t: TransactionRecord = {
      id: randomUUID(),
      userId: e.userId,
      creditsMicro: e.creditsMicro,
      amountMicroUsd: e.amountMicroUsd,
      paymentMethod: e.paymentMethod,
      status: e.status,
      taskId,
      description: e.description,
      createdAt: new Date(),
    };
    this.db.transactions.push(t);
    return t;
  }
}

export class MemoryAlertStore implements AlertStore {
  constructor(private readonly db: MemoryDatabase) {}
  async insert(a: { id: string; userId: string; thresholdMicro: number; armed: boolean }): Promise<BalanceAlertRecord> {
    if ([...this.db.alerts.values()].filter((x) => x.userId === a.userId).length >= USER_CAPS.balance_alerts) throw capExceeded('balance_alerts');
    const rec = { ...a, createdAt: new Date() };
    this.db.alerts.set(a.id, rec);
    return rec;
  }
  async listForUser(userId: string) {
    return [...this.db.alerts.values()].filter((a) => a.userId === userId);
  }
  async countForUser(userId: string) {
    return (await this.listForUser(userId)).length;
  }
  async findById(id: string) {
    return this.db.alerts.get(id) ?? null;
  }
  async delete(id: string, userId: string) {
    const a = this.db.alerts.get(id);
    if (!a || a.userId !== userId) return false;
    return this.db.alerts.delete(id);
  }
  async setArmed(id: string, armed: boolean) {
    const a = this.db.alerts.get(id);
    if (a) this.db.alerts.set(id, { ...a, armed });
  }
}

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

export class MemoryIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: MemoryDatabase) {}
  async find(userId: string, key: string) {
    const r = this.db.idempotency.get(`${userId}:${key}`);
    return r && Date.now() - r.at < IDEMPOTENCY_TTL_MS ? { requestHash: r.requestHash, response: r.response } : null;
  }
  async save(userId: string, key: string, requestHash: string, response: JsonObject) {
    if (await this.find(userId, key)) return false;
    this.db.idempotency.set(`${userId}:${key}`, { requestHash, response, at: Date.now() });
    return true;
  }
}

/** Records jobs; a test or the memory runner drains them. */
export class MemoryJobQueue implements JobQueue {
  constructor(private readonly db: MemoryDatabase) {}
  async enqueueGeneration(taskId: string, options?: { startAfterMs?: number; providerId?: string }) {
    const startAfterMs = options?.startAfterMs ?? 0;
    this.db.jobs.push({ queue: 'generate', payload: { taskId, ...(options?.providerId ? { providerId: options.providerId } : {}) }, startAfterMs, availableAt: Date.now() + startAfterMs });
  }
  async enqueueStatusCheck(taskId: string, options: { checkNumber: number; startAfterMs: number; providerId?: string }) {
    this.db.jobs.push({ queue: 'status-check', payload: { taskId, checkNumber: options.checkNumber }, startAfterMs: options.startAfterMs, availableAt: Date.now() + options.startAfterMs });
  }
  async enqueueCallback(taskId: string) {
    this.db.jobs.push({ queue: 'callback', payload: { taskId }, startAfterMs: 0, availableAt: Date.now() });
  }
  async enqueueAlertMail(alertId: string, balanceMicro: number) {
    this.db.jobs.push({ queue: 'alert-mail', payload: { alertId, balanceMicro }, startAfterMs: 0, availableAt: Date.now() });
  }
  async enqueueKeyBudgetMail(keyMail: KeyBudgetMail) {
    this.db.jobs.push({ queue: 'alert-mail', payload: { keyMail }, startAfterMs: 0, availableAt: Date.now() });
  }
}
