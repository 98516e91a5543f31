import { describe, expect, it } from 'vitest';
import type { RouteHealthState } from '../ports/route-health.js';
import { mergePolicy, orderRoutes, type OrderableRoute } from './route-order.js';

const route = (routeId: string, chargeMicro: number, modelRank = 0): OrderableRoute => ({ routeId, providerId: routeId.split('.')[0]!, chargeMicro, modelRank });
const A = route('fal.m', 300);
const B = route('replicate.m', 100);
const C = route('google.m', 200);
const FALLBACK = route('fal.other', 50, 1);
const state = (routeId: string, latencyP50Ms: number | null, recentAttempts: number, recentFailures: number): RouteHealthState => ({
  routeId,
  state: 'closed',
  openUntil: null,
  consecutiveFailures: 0,
  recentAttempts,
  recentFailures,
  latencyP50Ms,
});
const ids = (rs: readonly OrderableRoute[]) => rs.map((r) => r.routeId);
const never = () => {
  throw new Error('no draw expected');
};

describe('orderRoutes', () => {
  it('keeps the declared order by default, the requested model before its fallback models', () => {
    expect(ids(orderRoutes([FALLBACK, A, B, C], {}, [], never))).toEqual(['fal.m', 'replicate.m', 'google.m', 'fal.other']);
  });

  it('puts `order` first (providers or routes), then sorts by price, latency or success rate from the health states', () => {
    expect(ids(orderRoutes([A, B, C], { order: ['google'] }, [], never))).toEqual(['google.m', 'fal.m', 'replicate.m']);
    expect(ids(orderRoutes([A, B, C], { sort: 'price' }, [], never))).toEqual(['replicate.m', 'google.m', 'fal.m']);
    const health = [state('fal.m', 100, 10, 5), state('replicate.m', 900, 10, 0)];
    // Latency: a route without figures comes last; success rate: one without figures counts as 100 %.
    expect(ids(orderRoutes([A, B, C], { sort: 'latency' }, health, never))).toEqual(['fal.m', 'replicate.m', 'google.m']);
    expect(ids(orderRoutes([A, B, C], { sort: 'success_rate' }, health, never))).toEqual(['replicate.m', 'google.m', 'fal.m']);
  });

  it('draws among equals by the operator\'s weights with the injected random source (deterministic)', () => {
    const weights = { weights: [{ route: 'fal', weight: 3 }, { route: 'replicate.m', weight: 1 }] };
    // Total 3 + 1 + 1 (google unweighted = 1): a draw of 0.1 x 5 = 0.5 lands on fal, 0.7 x 5 = 3.5 on replicate.
    expect(ids(orderRoutes([A, B, C], weights, [], () => 0.1))[0]).toBe('fal.m');
    expect(ids(orderRoutes([A, B, C], weights, [], () => 0.7))[0]).toBe('replicate.m');
    expect(ids(orderRoutes([A, B, C], weights, [], () => 0.99))[0]).toBe('google.m');
    // Weights never reorder across ranks set by `order` or `sort`.
    expect(ids(orderRoutes([A, B, C], { ...weights, sort: 'price' }, [], () => 0.1))).toEqual(['replicate.m', 'google.m', 'fal.m']);
  });

  it('lets the request\'s fields win over the model\'s policy', () => {
    expect(mergePolicy({ sort: 'price', allow_fallbacks: false, fallback_on_content_policy: true }, { sort: 'latency' })).toEqual({
      sort: 'latency',
      allow_fallbacks: false,
      fallback_on_content_policy: true,
    });
  });
});
