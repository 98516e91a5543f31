import type { ModelRegistry } from '../catalog/model-registry.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ModelDescriptor } from '../model/model.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import type { TaskRecord } from '../model/task.js';
import type { ProviderAdapter } from '../ports/provider-adapter.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import { rotateAfterLastFailure } from './next-route.js';
import type { RouteCandidate, RoutePlan } from './route-plan.js';
import type { RoutePlanner } from './route-planner.js';

/** A route resolved for a task: the provider model called, the request as it takes it, its adapter. */
export interface ResolvedRoute {
  readonly candidate: Pick<RouteCandidate, 'routeId' | 'providerId'>;
  readonly model: ModelDescriptor;
  readonly request: NormalizedRequest;
  readonly adapter: ProviderAdapter;
}

/** The routes of a stored task, for the worker. Each method answers a user-facing reason instead of a route when none is left. */
export class TaskRoutes {
  constructor(
    private readonly registry: ModelRegistry,
    private readonly planner: RoutePlanner,
  ) {}

  /** The route the task's upstream job runs on (a long-running job is followed there, never resubmitted elsewhere). */
  current(task: TaskRecord): ResolvedRoute | string {
    const routeId = task.routeId ?? this.registry.routesOf(task.modelId)[0]?.id ?? task.modelId;
    const model = this.registry.find(routeId);
    if (!model || this.registry.isRouted(routeId)) return `Route ${routeId} of model ${task.modelId} is no longer available; no credits were charged.`;
    return this.resolve({ routeId, providerId: model.provider }, model, task);
  }

  /**
   * The candidates of the task's next attempt, in the order to try them: the plan made again from the stored
   * request (so a breaker's state and the operator's sort apply now), without routes priced above the
   * task's hold, rotated past the route whose attempt failed last.
   */
  next(task: TaskRecord, requested: ModelDescriptor): { plan: RoutePlan; ordered: RouteCandidate[] } | string {
    let plan: RoutePlan;
    try {
      plan = this.planner.plan(requested, task.request);
    } catch (e) {
      if (!(e instanceof GatewayError)) throw e;
      return `The request can no longer run on ${requested.id}: ${e.message} No credits were charged.`;
    }
    const withinHold = plan.candidates.filter((c) => c.quote.chargeMicro <= task.quotedMicro);
    const candidates = withinHold.length > 0 ? withinHold : plan.candidates;
    return { plan, ordered: rotateAfterLastFailure(candidates, task.routeAttempts ?? []) };
  }

  adapterOf(candidate: RouteCandidate): ProviderAdapter {
    return this.registry.adapterFor(candidate.routeId);
  }

  private resolve(candidate: ResolvedRoute['candidate'], model: ModelDescriptor, task: TaskRecord): ResolvedRoute | string {
    try {
      return { candidate, model, request: normalizeRunRequest(model, task.request), adapter: this.registry.adapterFor(model.id) };
    } catch (e) {
      return `The request is no longer valid for ${model.id}: ${(e as Error).message} No credits were charged.`;
    }
  }
}
