import type { RouteAttempt } from '../model/routing.js';
import type { RouteCandidate } from './route-plan.js';

/**
 * The candidates in the order the next attempt tries them: after an attempt that failed on a route, the
 * routes after it come first, then the ones before it (a retry moves on rather than hammering the route
 * that just failed, and comes back to it once the others were tried); before any attempt, the plan's order.
 */
export function rotateAfterLastFailure(candidates: readonly RouteCandidate[], attempts: readonly RouteAttempt[]): RouteCandidate[] {
  const last = attempts.findLast((a) => a.outcome !== 'skipped');
  if (!last || last.outcome !== 'error') return [...candidates];
  const i = candidates.findIndex((c) => c.routeId === last.route);
  if (i < 0) return [...candidates];
  return [...candidates.slice(i + 1), ...candidates.slice(0, i + 1)];
}
