import { isUpstreamError } from '../errors/upstream-error.js';
import { TaskCancelled } from '../execution/inflight-calls.js';
import { DeadlineExceeded } from '../execution/task-failure.js';
import type { RouteAttempt, RouteAttemptOutcome } from '../model/routing.js';
import type { RouteHealth } from '../ports/route-health.js';
import type { TaskStore } from '../ports/stores.js';
import type { Clock } from '../ports/system.js';
import type { RouteCandidate } from './route-plan.js';

/** The class of a failed attempt, as the attempt log and the breakers name it. */
export function errorClassOf(error: unknown): string {
  if (isUpstreamError(error)) return error.kind;
  if (error instanceof DeadlineExceeded) return 'deadline';
  if (error instanceof TaskCancelled) return 'aborted';
  return 'internal';
}

/** An attempt under way on a route. */
export interface AttemptStart {
  readonly route: Pick<RouteCandidate, 'routeId' | 'providerId'>;
  readonly startedAt: Date;
}

/**
 * The bookkeeping of attempts on routes, the same for a worker's task and an inline call: the breaker is
 * asked before each attempt (a refusal is logged as `skipped`, nothing is sent), and each attempt's end is
 * reported to the breaker and appended to the task's attempt log.
 */
export class RouteAttempts {
  constructor(
    private readonly tasks: Pick<TaskStore, 'recordRouteAttempt'>,
    private readonly health: RouteHealth,
    private readonly clock: Clock,
  ) {}

  /** May an attempt go to this route now? A refusal is logged (outcome `skipped`, class `circuit_open`). */
  async admit(taskId: string, route: AttemptStart['route']): Promise<AttemptStart | null> {
    const at = this.clock.now();
    if (await this.health.admit(route.routeId)) return { route, startedAt: at };
    await this.log(taskId, { route: route.routeId, provider: route.providerId, outcome: 'skipped', errorClass: 'circuit_open', upstreamStatus: null, startedAt: at, endedAt: at });
    return null;
  }

  /**
   * The attempt answered: `success` (output), or `started` (a long-running job the upstream accepted).
   * `alone`: it was the task's first and only attempt, on the model the task asked for. Such a task shows no
   * route nor attempt log (task-view: only routed tasks do), so the breaker hears of it but the log is not
   * written: the hot path of a plain task keeps its statement count.
   */
  async succeeded(taskId: string, attempt: AttemptStart, outcome: Extract<RouteAttemptOutcome, 'success' | 'started'> = 'success', alone = false): Promise<void> {
    await this.end(taskId, attempt, outcome, null, !alone);
  }

  async failed(taskId: string, attempt: AttemptStart, error: unknown): Promise<void> {
    await this.end(taskId, attempt, 'error', error);
  }

  private async end(taskId: string, a: AttemptStart, outcome: RouteAttemptOutcome, error: unknown, logged = true): Promise<void> {
    const endedAt = this.clock.now();
    const ok = outcome !== 'error';
    const errorClass = ok ? null : errorClassOf(error);
    // A cancelled task or a shutdown says nothing about the route's health.
    if (errorClass !== 'aborted') this.health.record({ routeId: a.route.routeId, ok, errorClass, latencyMs: endedAt.getTime() - a.startedAt.getTime(), at: endedAt });
    if (!logged) return;
    const upstreamStatus = !ok && isUpstreamError(error) ? error.statusCode : null;
    await this.log(taskId, { route: a.route.routeId, provider: a.route.providerId, outcome, errorClass, upstreamStatus, startedAt: a.startedAt, endedAt });
  }

  private async log(taskId: string, attempt: RouteAttempt): Promise<void> {
    await this.tasks.recordRouteAttempt(taskId, attempt);
  }
}
