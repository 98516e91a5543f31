import type { RouteHealth, RouteHealthState, RouteOutcome } from '@gengate/core';
import type { GengateMetrics } from './gengate-metrics.js';

/** A RouteHealth that also counts each attempt's end per route in the metrics, then hands it on. */
export class MeteredRouteHealth implements RouteHealth {
  constructor(
    private readonly inner: RouteHealth,
    private readonly metrics: Pick<GengateMetrics, 'routeOutcome'>,
  ) {}

  admit(routeId: string): Promise<boolean> {
    return this.inner.admit(routeId);
  }

  record(outcome: RouteOutcome): void {
    this.metrics.routeOutcome(outcome);
    this.inner.record(outcome);
  }

  states(): readonly RouteHealthState[] {
    return this.inner.states();
  }
}
