import type { ModelRoutingPolicy, RoutingPolicy } from '../model/routing.js';
import type { RouteHealthState } from '../ports/route-health.js';

/** What the ordering needs of one eligible route. */
export interface OrderableRoute {
  readonly routeId: string;
  readonly providerId: string;
  /** The user's price of this task on this route, micro-credits. */
  readonly chargeMicro: number;
  /** Rank of the model it serves: 0 = the requested model, 1.. = the request's fallback `models`, in order. */
  readonly modelRank: number;
}

/** Does `ref` (a provider id or a route id) name this route? */
export function names(ref: string, route: { readonly routeId: string; readonly providerId: string }): boolean {
  return ref === route.routeId || ref === route.providerId;
}

/** The effective policy: the request's fields win over the model's defaults; weights and fallback rules are the operator's only. */
export function mergePolicy(model: ModelRoutingPolicy | undefined, request: RoutingPolicy | undefined): ModelRoutingPolicy {
  return { ...(model ?? {}), ...(request ?? {}) };
}

/**
 * Orders eligible routes, best first: by the requested model first, then the fallback models in their
 * order; inside one model: routes named in `order` first (in that order), then by `sort` (price: quote
 * ascending; latency: p50 ascending, unknown last; success_rate: descending, unknown as 1), then by the
 * declared order. Routes left equal by all of that (same rank, no `order`, same sort key) are shuffled
 * by the operator's `weights` (weighted draw without replacement, `random` in [0, 1)); without weights
 * the declared order stands.
 */
export function orderRoutes<R extends OrderableRoute>(
  routes: readonly R[],
  policy: ModelRoutingPolicy,
  health: readonly RouteHealthState[],
  random: () => number,
): R[] {
  const stateOf = new Map(health.map((h) => [h.routeId, h]));
  const orderIndex = (r: R): number => {
    const i = (policy.order ?? []).findIndex((ref) => names(ref, r));
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const sortKey = (r: R): number => {
    const h = stateOf.get(r.routeId);
    switch (policy.sort) {
      case 'price':
        return r.chargeMicro;
      case 'latency':
        return h?.latencyP50Ms ?? Number.MAX_SAFE_INTEGER;
      case 'success_rate':
        return h && h.recentAttempts > 0 ? -(h.recentAttempts - h.recentFailures) / h.recentAttempts : -1;
      case undefined:
        return 0;
    }
  };
  const keyed = routes.map((r, declared) => ({ r, declared, key: [r.modelRank, orderIndex(r), sortKey(r)] as const }));
  keyed.sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2] || a.declared - b.declared);
  const weights = policy.weights ?? [];
  if (weights.length === 0) return keyed.map((k) => k.r);
  const weightOf = (r: R): number => weights.find((w) => names(w.route, r))?.weight ?? 1;
  const out: R[] = [];
  for (let i = 0; i < keyed.length; ) {
    let j = i;
    while (j < keyed.length && keyed[j]!.key.every((v, n) => v === keyed[i]!.key[n])) j++;
    out.push(...weightedShuffle(keyed.slice(i, j).map((k) => k.r), weightOf, random));
    i = j;
  }
  return out;
}

function weightedShuffle<R>(items: R[], weightOf: (r: R) => number, random: () => number): R[] {
  const left = [...items];
  const out: R[] = [];
  while (left.length > 0) {
    const total = left.reduce((s, r) => s + weightOf(r), 0);
    let draw = random() * total;
    let pick = left.length - 1;
    for (let i = 0; i < left.length; i++) {
      draw -= weightOf(left[i]!);
      if (draw < 0) {
        pick = i;
        break;
      }
    }
    out.push(left.splice(pick, 1)[0]!);
  }
  return out;
}
