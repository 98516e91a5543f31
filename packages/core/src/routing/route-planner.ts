import { inject, injectable } from 'inversify';
import { ModelRegistry } from '../catalog/model-registry.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ModelDescriptor } from '../model/model.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import type { RunRequest } from '../model/run-request.schema.js';
import { PriceBook } from '../pricing/price-book.js';
import { ALWAYS_HEALTHY, type RouteHealth } from '../ports/route-health.js';
import { TOKENS } from '../ports/tokens.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import { creditsToMicro } from '../util/money.js';
import { holdOf, type RouteCandidate, type RoutePlan } from './route-plan.js';
import { mergePolicy, names, orderRoutes } from './route-order.js';

export interface PlanOptions {
  /** What the quote counts instead of the normalized request (a chat call's whole input, see RunInline's heldInput). */
  readonly quoted?: (request: NormalizedRequest) => NormalizedRequest;
}

/**
 * Plans where a task may run: the routes of the requested model, then those of the request's fallback
 * `models`, filtered by the policy (`only`, `ignore`, `max_price`, the routes that can take this request)
 * and ordered by it (`order`, `sort`, the operator's `weights`). A provider model without routing fields
 * plans to itself, with the same errors and quote as before routing existed.
 */
@injectable()
export class RoutePlanner {
  constructor(
    @inject(ModelRegistry) private readonly registry: ModelRegistry,
    @inject(PriceBook) private readonly prices: PriceBook,
    @inject(TOKENS.RouteHealth) private readonly health: RouteHealth = ALWAYS_HEALTHY,
    @inject(TOKENS.Random) private readonly random: () => number = Math.random,
  ) {}

  /** `request` has passed the generic run schema. Throws a GatewayError (400/422) when no candidate is left; nothing is written. */
  plan(model: ModelDescriptor, request: RunRequest, options: PlanOptions = {}): RoutePlan {
    const policy = mergePolicy(this.registry.routingPolicyOf(model.id), request.provider);
    const served = [model, ...(request.models ?? []).map((id, i) => this.fallbackModel(model, id, i))];
    const all = served.flatMap((m, rank) => this.registry.routesOf(m.id).map((route) => ({ m, rank, route })));
    for (const field of ['only', 'ignore', 'order'] as const) {
      (policy[field] ?? []).forEach((ref, i) => {
        if (!all.some((r) => names(ref, { routeId: r.route.id, providerId: r.route.provider }))) {
          throw new GatewayError('invalid_routing', `provider.${field}[${i}] '${ref}' is neither a provider nor a route of ${served.map((m) => m.id).join(', ')}; see GET /api/v1/models.`, {
            param: `provider.${field}[${i}]`,
          });
        }
      });
    }
    const maxMicro = policy.max_price === undefined ? null : creditsToMicro(policy.max_price);
    const eligible: (RouteCandidate & { modelRank: number; chargeMicro: number })[] = [];
    const refusals: GatewayError[] = [];
    const reasons: string[] = [];
    for (const { m, rank, route } of all) {
      const ref = { routeId: route.id, providerId: route.provider };
      if (policy.only && !policy.only.some((o) => names(o, ref))) continue;
      if (policy.ignore?.some((o) => names(o, ref))) continue;
      if (!this.registry.isActive(route)) {
        reasons.push(`${route.id} is not available`);
        continue;
      }
      let normalized: NormalizedRequest;
      try {
        normalized = normalizeRunRequest(route, request);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        refusals.push(error);
        reasons.push(`${route.id} does not take this request (${error.message})`);
        continue;
      }
      const quote = this.prices.quote(route, options.quoted ? options.quoted(normalized) : normalized);
      if (maxMicro !== null && quote.chargeMicro > maxMicro) {
        reasons.push(`${route.id} costs ${quote.chargeMicro / 1_000_000} credits`);
        continue;
      }
      eligible.push({ routeId: route.id, providerId: route.provider, servedModelId: m.id, model: route, request: normalized, quote, modelRank: rank, chargeMicro: quote.chargeMicro });
    }
    if (eligible.length === 0) {
      // A request no route can take is refused as the requested model's own schema refuses it.
      const first = refusals[0];
      if (first && refusals.length === reasons.length) throw first;
      const limit = maxMicro === null ? '' : ` (max_price ${policy.max_price} credits)`;
      throw new GatewayError('no_route_available', `No route of ${model.id} is left for this request${limit}: ${reasons.join('; ') || 'the policy excludes every route'}. Nothing was held.`, {
        param: maxMicro !== null ? 'provider.max_price' : 'provider',
      });
    }
    // One route needs no ordering; only a sort by latency or success rate reads the routes' health.
    const health = policy.sort === 'latency' || policy.sort === 'success_rate' ? this.health.states() : [];
    const ordered = eligible.length === 1 ? eligible : orderRoutes(eligible, policy, health, this.random);
    const candidates: RouteCandidate[] = (policy.allow_fallbacks === false ? ordered.slice(0, 1) : ordered).map(
      ({ routeId, providerId, servedModelId, model: m, request: r, quote }) => ({ routeId, providerId, servedModelId, model: m, request: r, quote }),
    );
    return { modelId: model.id, candidates, hold: holdOf(candidates), policy };
  }

  private fallbackModel(requested: ModelDescriptor, id: string, i: number): ModelDescriptor {
    const m = this.registry.find(id);
    if (!m) throw new GatewayError('invalid_routing', `models[${i}]: no model with id '${id}'; see GET /api/v1/models.`, { param: `models[${i}]` });
    if (m.modality !== requested.modality) {
      throw new GatewayError('invalid_routing', `models[${i}]: '${id}' is a ${m.modality} model, not ${requested.modality} like ${requested.id}.`, { param: `models[${i}]` });
    }
    return m;
  }
}
