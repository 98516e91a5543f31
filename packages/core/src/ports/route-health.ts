/**
 * Health of the routes that serve a model (one route = one provider adapter's model), shared by every API
 * and worker process of a deployment: a circuit breaker per route. The router asks `admit` before each
 * attempt on a route and reports every attempt's end with `record`.
 */

/** A route's breaker: `closed` = calls go through; `open` = calls are refused until the cooldown ends; `half_open` = one probe call decides. */
export type CircuitState = 'closed' | 'open' | 'half_open';

/** How one attempt on a route ended. `errorClass` is null on success, else the UpstreamError kind (or `timeout`, `aborted`, `internal`). */
export interface RouteOutcome {
  /** The route: the catalog id of the provider model that was called (e.g. `fal.kling-v2.1-master`). */
  readonly routeId: string;
  readonly ok: boolean;
  readonly errorClass: string | null;
  readonly latencyMs: number;
  readonly at: Date;
}

/** What the operator view and `/metrics` show of one route. */
export interface RouteHealthState {
  readonly routeId: string;
  readonly state: CircuitState;
  /** When an open breaker lets a probe through (null unless open). */
  readonly openUntil: Date | null;
  readonly consecutiveFailures: number;
  /** Over the breaker's recent window: attempts, failures and the latency p50 in ms (null before any attempt). */
  readonly recentAttempts: number;
  readonly recentFailures: number;
  readonly latencyP50Ms: number | null;
}

export interface RouteHealth {
  /**
   * May an attempt go to this route now? Resolves at once from the process's view while the breaker is
   * closed (no I/O on that path); while it is half-open, true only for the one caller (in any process) that
   * takes the probe. Never rejects: when the shared state cannot be read, the process's last view decides.
   */
  admit(routeId: string): Promise<boolean>;
  /** Reports one attempt's end. Returns at once; writing to the shared state is batched off the caller's path. */
  record(outcome: RouteOutcome): void;
  /** Every route seen so far, for the operator view and `/metrics`. */
  states(): readonly RouteHealthState[];
}

/** The default: every route admitted, nothing recorded (a deployment without a shared breaker). */
export const ALWAYS_HEALTHY: RouteHealth = {
  admit: () => Promise.resolve(true),
  record: () => undefined,
  states: () => [],
};
