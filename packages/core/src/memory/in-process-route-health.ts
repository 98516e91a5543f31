import {
  addTally,
  admitDecision,
  classifyOutcome,
  CLOSED,
  closedAfterProbe,
  consecutiveAfter,
  emptyTally,
  extendRun,
  latencyP50,
  NO_RUN,
  opened,
  probeReleased,
  probing,
  resolveRouteBreakerOptions,
  secondOf,
  tallyOf,
  tripReason,
  windowStart,
  type BreakerRecord,
  type RouteBreakerOptions,
  type RouteBreakerOptionsInput,
  type RouteTally,
} from '../execution/route-breaker.js';
import type { Clock } from '../ports/system.js';
import type { RouteHealth, RouteHealthState, RouteOutcome } from '../ports/route-health.js';

interface RouteEntry {
  record: BreakerRecord;
  /** Tallies per second (secondOf), pruned past the window. */
  readonly seconds: Map<number, RouteTally>;
}

/**
 * The circuit breakers of one process, in memory: for an embedder without PostgreSQL (or with one process)
 * and for tests. The rules are route-breaker.ts's. While half-open, the first outcome counted after the
 * probe was taken decides (in one process, that is the probe's unless an older attempt ends first).
 */
export class InProcessRouteHealth implements RouteHealth {
  readonly options: RouteBreakerOptions;
  private readonly routes = new Map<string, RouteEntry>();

  constructor(
    options: RouteBreakerOptionsInput = {},
    private readonly clock: Clock = { now: () => new Date() },
  ) {
    this.options = resolveRouteBreakerOptions(options);
  }

  private entry(routeId: string): RouteEntry {
    let e = this.routes.get(routeId);
    if (!e) {
      e = { record: CLOSED, seconds: new Map() };
      this.routes.set(routeId, e);
    }
    return e;
  }

  admit(routeId: string): Promise<boolean> {
    const e = this.entry(routeId);
    const now = this.clock.now();
    const decision = admitDecision(e.record, now);
    if (decision === 'take_probe') e.record = probing(e.record, now, this.options);
    return Promise.resolve(decision !== 'refuse');
  }

  record(outcome: RouteOutcome): void {
    const e = this.entry(outcome.routeId);
    const kind = classifyOutcome(outcome, this.options);
    const now = this.clock.now();
    if (kind === 'ignored') {
      if (e.record.state === 'half_open') e.record = probeReleased(e.record);
      return;
    }
    const second = secondOf(outcome.at);
    e.seconds.set(second, addTally(e.seconds.get(second) ?? emptyTally(), tallyOf(kind, outcome.latencyMs)));
    const consecutiveFailures = consecutiveAfter(e.record.consecutiveFailures, extendRun(NO_RUN, kind));
    e.record = { ...e.record, consecutiveFailures };
    if (e.record.state === 'half_open' && e.record.probeUntil !== null) {
      e.record = kind === 'success' ? closedAfterProbe(now) : opened(e.record, now, this.options, true);
      return;
    }
    if (e.record.state === 'closed' && tripReason(consecutiveFailures, this.window(e, now), this.options) !== null) {
      e.record = opened(e.record, now, this.options, false);
    }
  }

  private window(e: RouteEntry, now: Date): RouteTally {
    const from = windowStart(now, e.record.since, this.options);
    let sum = emptyTally();
    for (const [second, tally] of e.seconds) {
      if (second < from) e.seconds.delete(second);
      else sum = addTally(sum, tally);
    }
    return sum;
  }

  states(): readonly RouteHealthState[] {
    const now = this.clock.now();
    return [...this.routes].map(([routeId, e]) => {
      const w = this.window(e, now);
      return {
        routeId,
        state: e.record.state,
        openUntil: e.record.state === 'open' ? e.record.openUntil : null,
        consecutiveFailures: e.record.consecutiveFailures,
        recentAttempts: w.attempts,
        recentFailures: w.failures,
        latencyP50Ms: latencyP50(w.latency),
      };
    });
  }
}
