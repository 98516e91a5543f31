import { z } from 'zod';
import type { ModelRegistry } from '../../catalog/model-registry.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ApiKeyView } from '../../model/api-key.js';
import { ALWAYS_HEALTHY, type CircuitState, type RouteHealth } from '../../ports/route-health.js';
import type { Clock } from '../../ports/system.js';
import { microToCredits } from '../../util/money.js';
import { isUuid } from '../../util/uuid.js';
import type { AdminService } from '../admin.js';
import type { ManageKeys } from '../manage-keys.js';
import { pageQuerySchema } from '../pagination.js';
import type { AccountDirectory, TaskCount, UserRole, UserSummary } from './account-directory.js';

/** Depth of one job queue of the host (pg-boss in the standalone host). */
export interface QueueDepth {
  readonly queue: string;
  /** Jobs waiting, deferred ones included. */
  readonly queued: number;
  /** Jobs that may start now. */
  readonly ready: number;
  readonly deferred: number;
  readonly active: number;
  /** Failed jobs still retained. */
  readonly failed: number;
}

/** The host's view of its job queues; absent for hosts without one. */
export interface QueueInspector {
  depth(): Promise<readonly QueueDepth[]>;
}

export interface UserSummaryView {
  id: string;
  email: string;
  role: UserRole;
  created_at: string;
  credits: number;
  held_credits: number;
  granted_credits: number;
  active_keys: number;
  revoked_keys: number;
  tasks: number;
}

const usersQuerySchema = pageQuerySchema.extend({ search: z.string().max(200).optional() });
const grantSchema = z.strictObject({
  credits: z.number().positive().max(1_000_000_000).refine((n) => Math.abs(n * 1e6 - Math.round(n * 1e6)) < 1e-3, 'credits: at most 6 decimals'),
  description: z.string().trim().min(1).max(200).optional(),
});
const failuresQuerySchema = z.object({ hours: z.coerce.number().int().min(1).max(24 * 30).default(24) });

function toUserView(u: UserSummary): UserSummaryView {
  return {
    id: u.id,
    email: u.email,
    role: u.role,
    created_at: u.createdAt.toISOString(),
    credits: microToCredits(u.balanceMicro),
    held_credits: microToCredits(u.heldMicro),
    granted_credits: microToCredits(u.grantedMicro),
    active_keys: u.activeKeys,
    revoked_keys: u.revokedKeys,
    tasks: u.tasks,
  };
}

/** One route's breaker in the operator view (GET /dashboard/api/operator/routes). */
export interface RouteHealthView {
  readonly route_id: string;
  readonly state: CircuitState;
  readonly open_until: string | null;
  readonly consecutive_failures: number;
  readonly recent_attempts: number;
  readonly recent_failures: number;
  readonly latency_p50_ms: number | null;
}

/** What operators see and do in the dashboard: users, grants, key revocation, providers, queues, failures. */
export class OperatorService {
  constructor(
    private readonly directory: AccountDirectory,
    private readonly registry: ModelRegistry,
    private readonly keys: ManageKeys,
    private readonly admin: AdminService,
    private readonly queues: QueueInspector | null,
    private readonly clock: Clock,
    private readonly routeHealth: RouteHealth = ALWAYS_HEALTHY,
  ) {}

  async users(rawQuery: unknown): Promise<{ data: UserSummaryView[]; total: number; page: number; per_page: number }> {
    const parsed = usersQuerySchema.safeParse(rawQuery);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const { page, per_page, search } = parsed.data;
    const result = await this.directory.searchUsers((search ?? '').trim(), page, per_page);
    return { data: result.items.map(toUserView), total: result.total, page, per_page };
  }

  private async requireUser(userId: string): Promise<UserSummary> {
    const user = isUuid(userId) ? await this.directory.findUser(userId.toLowerCase()) : null;
    if (!user) throw new GatewayError('not_found', `No user with id '${userId}'.`, { param: 'user_id' });
    return user;
  }

  async user(userId: string): Promise<{ user: UserSummaryView; api_keys: ApiKeyView[] }> {
    const user = await this.requireUser(userId);
    const keys = await this.keys.list({ userId: user.id, apiKeyId: null });
    return { user: toUserView(user), api_keys: keys.data };
  }

  async grant(userId: string, body: unknown): Promise<{ transaction_id: string; credits: number; user: UserSummaryView }> {
    const user = await this.requireUser(userId);
    const parsed = grantSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const granted = await this.admin.grantCredits(user.id, parsed.data.credits, parsed.data.description ?? 'Operator grant');
    return { ...granted, user: toUserView(await this.requireUser(user.id)) };
  }

  /** Revokes one of the user's keys through the same use case as DELETE /api-keys/{id} (waiting tasks fail, holds released). */
  async revokeKey(userId: string, keyId: string): Promise<{ id: string; deleted: true; failed_task_ids: string[] }> {
    const user = await this.requireUser(userId);
    return this.keys.revoke({ userId: user.id, apiKeyId: null }, keyId);
  }

  providers(): { data: { provider: string; configured: boolean; reason: string | null; settings: string[]; models: number; active_models: number }[] } {
    const all = this.registry.all();
    return {
      data: this.registry
        .adapters()
        .map((a) => {
          const models = all.filter((m) => this.registry.adapterFor(m.id) === a);
          const availability = a.availability ?? { available: true as const };
          return {
            provider: a.providerId,
            configured: availability.available,
            reason: availability.available ? null : availability.reason,
            settings: availability.available ? [] : [...availability.settings],
            models: models.length,
            active_models: models.filter((m) => this.registry.isActive(m)).length,
          };
        })
        .sort((x, y) => x.provider.localeCompare(y.provider)),
    };
  }

  /** Each route's circuit breaker, as this process sees the shared state (at most a second old), by route id. */
  routes(): { data: RouteHealthView[] } {
    return {
      data: this.routeHealth
        .states()
        .map((r) => ({
          route_id: r.routeId,
          state: r.state,
          open_until: r.openUntil?.toISOString() ?? null,
          consecutive_failures: r.consecutiveFailures,
          recent_attempts: r.recentAttempts,
          recent_failures: r.recentFailures,
          latency_p50_ms: r.latencyP50Ms,
        }))
        .sort((x, y) => x.route_id.localeCompare(y.route_id)),
    };
  }

  async queue(): Promise<{ tasks: { modality: string; status: string; admitted: boolean | null; count: number }[]; queues: QueueDepth[] | null }> {
    const tasks: readonly TaskCount[] = await this.directory.unfinishedTaskCounts();
    return { tasks: tasks.map((t) => ({ ...t })), queues: this.queues ? [...(await this.queues.depth())] : null };
  }

  async failures(rawQuery: unknown): Promise<{
    since: string;
    data: { provider: string; failures: number; models: { model_id: string; failures: number; last_at: string; last_message: string }[] }[];
  }> {
    const parsed = failuresQuerySchema.safeParse(rawQuery);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const since = new Date(this.clock.now().getTime() - parsed.data.hours * 3_600_000);
    const groups = await this.directory.recentFailures(since, 200);
    const byProvider = new Map<string, { provider: string; failures: number; models: { model_id: string; failures: number; last_at: string; last_message: string }[] }>();
    for (const g of groups) {
      const provider = this.registry.find(g.modelId)?.provider ?? 'unknown';
      const entry = byProvider.get(provider) ?? { provider, failures: 0, models: [] };
      entry.failures += g.failures;
      entry.models.push({ model_id: g.modelId, failures: g.failures, last_at: g.lastAt.toISOString(), last_message: g.lastMessage });
      byProvider.set(provider, entry);
    }
    return { since: since.toISOString(), data: [...byProvider.values()].sort((a, b) => b.failures - a.failures) };
  }
}
