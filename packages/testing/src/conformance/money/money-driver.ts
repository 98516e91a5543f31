import { isGatewayError, TOKENS, type AuthContext, type TaskSuccess } from '@gengate/core';
import { memberSpendOf, toMemberSpendView } from '@gengate/core/internal';
import type { MoneyImplementation, MoneyImplementationConfig } from './money-harness.js';
import { CONTRACT_MODEL, quoteOf } from './money-model.js';
import { normaliseMoneyState, type MoneyState, type UserMoneyState } from './money-state.js';

/**
 * One step of a money scenario, as plain data (fast-check prints a failing sequence of them). `user` and
 * `pick` are indexes, taken modulo the users or the accepted tasks (so any number is valid).
 */
export type MoneyCommand =
  /** POST /run with 1-4 images (2 credits each), optionally an Idempotency-Key and a callback URL. */
  | { readonly kind: 'submit'; readonly user: number; readonly images: number; readonly key: string | null; readonly callback: boolean }
  /** The same Idempotency-Key again: with the same body (a replay) or another one (a conflict). */
  | { readonly kind: 'resubmit'; readonly pick: number; readonly sameBody: boolean }
  /** The worker takes an admitted waiting task's generation job: waiting -> generating (attempt 1). */
  | { readonly kind: 'start'; readonly pick: number }
  /**
   * A retryable upstream failure of the task's current attempt, as the worker handles it
   * (ExecuteTask.failed): below maxAttempts the attempt is rescheduled (handle cleared, generation job
   * enqueued) and the next attempt starts (attempts + 1, still generating, hold kept); at maxAttempts the
   * task fails and its hold is released.
   */
  | { readonly kind: 'retry'; readonly pick: number }
  /** TaskCompletion.succeed: without usage (the quote is charged) or with usage priced at `chargePermille` of the hold (above 1000: capped). */
  | { readonly kind: 'succeed'; readonly pick: number; readonly chargePermille: number | null }
  /** A non-retryable failure: FailTask. */
  | { readonly kind: 'fail'; readonly pick: number }
  /** POST /run/tasks/{id}/cancel. */
  | { readonly kind: 'cancel'; readonly pick: number }
  /** DELETE /api-keys/{id} of the user's current key; with `reissue`, a new key is used from then on (else the revoked one is). */
  | { readonly kind: 'revoke'; readonly user: number; readonly reissue: boolean }
  /** POST /billing/topup, and the manual purchase completed (or left pending). */
  | { readonly kind: 'topup'; readonly user: number; readonly usd: number; readonly complete: boolean }
  /** A balance alert created at this threshold, or (null) the user's lowest one deleted. */
  | { readonly kind: 'alert'; readonly user: number; readonly thresholdCredits: number | null }
  /** PUT /api-keys/{id} of the user's current key: its spend limit (credits, null: none), period, concurrency cap and soft threshold. */
  | {
      readonly kind: 'budget';
      readonly user: number;
      readonly limitCredits: number | null;
      readonly period: 'day' | 'week' | 'month' | 'none';
      readonly maxConcurrent: number | null;
      readonly softPercent: number | null;
    }
  /** PUT /api-keys/{id}: the key's allowed models (null: all; `other`: only a model that is not the contract's). */
  | { readonly kind: 'allow'; readonly user: number; readonly models: 'contract' | 'other' | null }
  /**
   * PATCH /organizations/{id}/members/{user_id} of the user in their personal organization: their spend
   * limit as its member (credits, null: none) and its period (docs/organizations.md, member spend limits).
   */
  | { readonly kind: 'member'; readonly user: number; readonly limitCredits: number | null; readonly period: 'day' | 'week' | 'month' | 'none' }
  /** The clock moves on (into the next budget day when past midnight UTC); a noop without a MoneyClock. */
  | { readonly kind: 'advance'; readonly hours: number };

/** What a command answered, ids named: `accepted t2`, `replay t2`, `error insufficient_credits`, `noop`... */
export type MoneyOutcome = string;

const SUCCESS_DESCRIPTION = 'contract.image generation';
const FAIL_MESSAGE = 'contract: the upstream failed';
const RETRIES_EXHAUSTED = 'contract: the upstream failed on every attempt';

/**
 * Maps each MoneyCommand to calls on one implementation's use cases and ports: the ONE file to adapt when
 * a port changes (for example a TaskCompletion.fail replacing FailTask). It names users and tasks in order
 * of creation, so two drivers given the same commands name the same things alike.
 */
export class MoneyDriver {
  private readonly users: { id: string; auth: AuthContext }[] = [];
  private readonly tasks: string[] = [];
  private readonly keyed: { user: number; images: number; key: string; callback: boolean }[] = [];
  private emails = 0;

  constructor(
    readonly impl: MoneyImplementation,
    private readonly config: MoneyImplementationConfig,
  ) {}

  private get g() {
    return this.impl.gengate;
  }

  /** A user with these starting credits (an operator grant). */
  async addUser(credits: number): Promise<string> {
    const { api_key } = await this.g.admin.createUser({ email: `contract-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${this.emails++}@example.com`, credits });
    const auth = await this.g.authenticate.execute(api_key, '127.0.0.1');
    this.users.push({ id: auth.userId, auth });
    return `u${this.users.length - 1}`;
  }

  userId(name: string): string {
    const u = this.users[Number(name.slice(1))];
    if (!u) throw new Error(`no user ${name}`);
    return u.id;
  }

  taskId(name: string): string {
    const t = this.tasks[Number(name.slice(1))];
    if (!t) throw new Error(`no task ${name}`);
    return t;
  }

  authOf(name: string): AuthContext {
    const u = this.users[Number(name.slice(1))];
    if (!u) throw new Error(`no user ${name}`);
    return u.auth;
  }

  /** The rows' state, and each user's active keys as GET /api-keys shows their budget (through the use case: the same on every implementation). */
  async state(): Promise<MoneyState> {
    const raw = await this.impl.readState(this.users.map((u) => u.id));
    const state = normaliseMoneyState(raw, {
      users: new Map(this.users.map((u, i) => [u.id, `u${i}`])),
      tasks: new Map(this.tasks.map((t, i) => [t, `t${i}`])),
    });
    const out: Record<string, UserMoneyState> = {};
    for (const [i, u] of this.users.entries()) {
      const name = `u${i}`;
      const s = state[name];
      if (!s) continue;
      const { data } = await this.g.keys.list(u.auth);
      const keys = data.map((k) => ({
        spendLimit: k.spend_limit,
        budgetPeriod: k.budget_period,
        spent: k.spent,
        remaining: k.remaining,
        resetsAt: k.resets_at,
        concurrentTasks: k.concurrent_tasks,
      }));
      out[name] = { ...s, keys, member: await this.memberFigures(u.id) };
    }
    return out;
  }

  /** The user's spend figures as the member of their personal organization; null without organizations. */
  private async memberFigures(userId: string): Promise<UserMoneyState['member']> {
    const c = this.g.container;
    // An implementation without organizations (createGengate's default store answers service_unavailable).
    const m = await c
      .get(TOKENS.OrganizationStore)
      .membership(userId, userId)
      .catch((err: unknown) => {
        if (isGatewayError(err) && err.type === 'service_unavailable') return null;
        throw err;
      });
    if (!m) return null;
    const f = toMemberSpendView(await memberSpendOf(c.get(TOKENS.Stores).memberBudgets, m, c.get(TOKENS.Clock).now()));
    return { spendLimit: m.spendLimitMicro === null ? null : m.spendLimitMicro / 1_000_000, budgetPeriod: m.budgetPeriod, spent: f.spent, remaining: f.remaining, resetsAt: f.resets_at };
  }

  /** Runs one command; a refusal by the gateway is an outcome (`error <type>`), anything else throws. */
  async run(c: MoneyCommand): Promise<MoneyOutcome> {
    try {
      return await this.dispatch(c);
    } catch (err) {
      if (isGatewayError(err)) return `error ${err.type}`;
      throw err;
    }
  }

  private name(taskId: string): string {
    const i = this.tasks.indexOf(taskId);
    return i >= 0 ? `t${i}` : `unknown task`;
  }

  private user(i: number) {
    const u = this.users[i % this.users.length];
    if (!u) throw new Error('add users before running commands');
    return u;
  }

  private pick(i: number): string | null {
    return this.tasks.length === 0 ? null : (this.tasks[i % this.tasks.length] ?? null);
  }

  private async submit(user: number, images: number, key: string | null, callback: boolean): Promise<MoneyOutcome> {
    const body = { prompt: `p${images}`, image_params: { n: images }, ...(callback ? { callback_url: 'https://hooks.example.com/done' } : {}) };
    const { task_id } = await this.g.submitRun.execute(this.user(user).auth, CONTRACT_MODEL.id, body, key === null ? {} : { idempotencyKey: key });
    if (this.tasks.includes(task_id)) return `replay ${this.name(task_id)}`;
    this.tasks.push(task_id);
    return `accepted ${this.name(task_id)}`;
  }

  private async dispatch(c: MoneyCommand): Promise<MoneyOutcome> {
    const stores = this.g.container.get(TOKENS.Stores);
    switch (c.kind) {
      case 'submit':
        if (c.key !== null) this.keyed.push({ user: c.user % this.users.length, images: c.images, key: c.key, callback: c.callback });
        return this.submit(c.user, c.images, c.key, c.callback);
      case 'resubmit': {
        const k = this.keyed[c.pick % Math.max(1, this.keyed.length)];
        if (!k) return 'noop';
        return this.submit(k.user, c.sameBody ? k.images : (k.images % 4) + 1, k.key, k.callback);
      }
      case 'start': {
        const id = this.pick(c.pick);
        const task = id === null ? null : await stores.tasks.findById(id);
        if (!task || task.status !== 'waiting' || !task.admitted) return 'noop';
        return (await stores.tasks.markGenerating(task.id, new Date())) ? 'generating' : 'not started';
      }
      case 'retry': {
        const id = this.pick(c.pick);
        const task = id === null ? null : await stores.tasks.findById(id);
        if (!task || task.status !== 'generating') return 'noop';
        if (task.attempts >= this.config.scheduling.maxAttempts) return (await this.g.failTask.execute(task.id, RETRIES_EXHAUSTED)) ? 'failed' : 'ended';
        const rescheduled = await this.g.container.get(TOKENS.UnitOfWork).run(async (tx) => {
          const current = await tx.tasks.findById(task.id);
          if (current?.status !== 'generating') return false;
          if (current.upstreamHandle !== null) await tx.tasks.saveUpstreamHandle(task.id, null);
          await tx.jobs.enqueueGeneration(task.id, { startAfterMs: 0, providerId: CONTRACT_MODEL.provider });
          return true;
        });
        if (!rescheduled) return 'ended';
        const next = await stores.tasks.markGenerating(task.id, new Date());
        return next ? `attempt ${next.attempts}` : 'ended';
      }
      case 'succeed': {
        const id = this.pick(c.pick);
        const task = id === null ? null : await stores.tasks.findById(id);
        if (!task) return 'noop';
        const chargedMicro = c.chargePermille === null ? task.quotedMicro : Math.round((task.quotedMicro * c.chargePermille) / 1000);
        const success: TaskSuccess = {
          outputs: [],
          warnings: [],
          chargedMicro,
          costMicro: chargedMicro,
          reportedCostMicro: null,
          usage: c.chargePermille === null ? {} : { images: Math.max(1, Math.round(task.quotedMicro / quoteOf(1))) },
          metadata: {},
          at: new Date(),
        };
        const ended = await this.g.container.get(TOKENS.TaskCompletion).succeed({
          task,
          success,
          chargeDescription: SUCCESS_DESCRIPTION,
          maxRunning: this.config.scheduling.maxRunningPerUser[task.modality],
        });
        return ended ? 'succeeded' : 'already ended';
      }
      case 'fail': {
        const id = this.pick(c.pick);
        if (id === null) return 'noop';
        return (await this.g.failTask.execute(id, FAIL_MESSAGE)) ? 'failed' : 'already ended';
      }
      case 'cancel': {
        const id = this.pick(c.pick);
        if (id === null) return 'noop';
        const owner = (await stores.tasks.findById(id))?.userId;
        const auth = this.users.find((u) => u.id === owner)?.auth;
        if (!auth) return 'noop';
        const view = await this.g.cancelTask.execute(auth, id);
        return `cancelled ${view.status}`;
      }
      case 'revoke': {
        const u = this.user(c.user);
        const apiKeyId = u.auth.apiKeyId;
        if (apiKeyId === null) return 'noop';
        const { failed_task_ids } = await this.g.keys.revoke(u.auth, apiKeyId);
        if (c.reissue) {
          const { key } = await this.g.keys.create(u.auth, { name: 'reissued' });
          u.auth = await this.g.authenticate.execute(key, '127.0.0.1');
        }
        // Sorted by label: the answer is in id order, and each implementation draws its own ids.
        return `revoked, failed [${failed_task_ids.map((t) => this.name(t)).sort().join(' ')}]`;
      }
      case 'topup': {
        const u = this.user(c.user);
        const started = await this.g.billing.topup(u.auth, { amount: c.usd });
        if (!c.complete) return `pending ${started.credits}`;
        return `${await this.g.billing.completePurchase(started.transaction_id, { paymentMethod: 'manual' })} ${started.credits}`;
      }
      case 'alert': {
        const u = this.user(c.user);
        if (c.thresholdCredits !== null) return `alert ${(await this.g.billing.createAlert(u.auth, { threshold: c.thresholdCredits })).armed ? 'armed' : 'disarmed'}`;
        const { data } = await this.g.billing.listAlerts(u.auth);
        const lowest = [...data].sort((a, b) => a.threshold - b.threshold || Number(b.armed) - Number(a.armed))[0];
        if (!lowest) return 'noop';
        await this.g.billing.deleteAlert(u.auth, lowest.id);
        return `deleted ${lowest.threshold}`;
      }
      case 'budget': {
        const u = this.user(c.user);
        if (u.auth.apiKeyId === null) return 'noop';
        const k = await this.g.keys.update(u.auth, u.auth.apiKeyId, {
          spend_limit: c.limitCredits,
          budget_period: c.period,
          max_concurrent_tasks: c.maxConcurrent,
          soft_threshold_percent: c.softPercent,
        });
        return `budget ${k.spend_limit ?? 'none'} per ${k.budget_period}, spent ${k.spent}`;
      }
      case 'allow': {
        const u = this.user(c.user);
        if (u.auth.apiKeyId === null) return 'noop';
        const models = c.models === null ? null : [c.models === 'contract' ? CONTRACT_MODEL.id : 'contract.other'];
        const k = await this.g.keys.update(u.auth, u.auth.apiKeyId, { allowed_models: models });
        return `allowed ${k.allowed_models?.join(',') ?? 'all'}`;
      }
      case 'member': {
        const u = this.user(c.user);
        const changed = await this.g.container
          .get(TOKENS.OrganizationStore)
          .updateMember(u.id, u.id, { spendLimitMicro: c.limitCredits === null ? null : c.limitCredits * 1_000_000, budgetPeriod: c.period });
        if (changed.outcome !== 'ok') return changed.outcome;
        const f = await this.memberFigures(u.id);
        return `member limit ${f?.spendLimit ?? 'none'} per ${f?.budgetPeriod ?? '?'}, spent ${f?.spent ?? '?'}`;
      }
      case 'advance': {
        if (!this.config.clock) return 'noop';
        this.config.clock.advance(c.hours * 3_600_000);
        return `now ${this.config.clock.now().toISOString()}`;
      }
    }
  }
}
