import type { RouteHealthState, RouteOutcome, Telemetry } from '@gengate/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: from a fast chat reply to a long video. */
const GENERATION_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
const UPSTREAM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** What the callback worker reports per delivery attempt. */
export type CallbackResult = 'delivered' | 'retried' | 'abandoned';

/** The callback and mail workers' side of the metrics. */
export interface WorkerMetrics {
  callback(result: CallbackResult): void;
  mailSent(): void;
}

/**
 * Every gengate metric, on its own prom-client registry (several servers in one process do not share
 * counters). Counters and histograms are bumped in memory on the paths that cause them; the gauges that
 * describe the database (queue depth, holds, tasks in flight) are set by their samplers, never per request.
 * Counters are per process (sum them across processes); database gauges are the same in every process
 * (take their max).
 */
export class GengateMetrics implements Telemetry, WorkerMetrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'gengate_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, with their latency (its _count is the number of requests).',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly submitted = new Counter({
    name: 'gengate_tasks_submitted_total',
    help: 'Tasks accepted (written) by this process, by model and provider.',
    labelNames: ['model', 'provider'] as const,
    registers: [this.registry],
  });
  private readonly refused = new Counter({
    name: 'gengate_submissions_refused_total',
    help: 'Submissions refused before anything was written, by reason (overloaded = back-pressure).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly started = new Counter({
    name: 'gengate_tasks_started_total',
    help: 'Tasks whose first generation attempt began in this process, by model and provider.',
    labelNames: ['model', 'provider'] as const,
    registers: [this.registry],
  });
  private readonly ended = new Counter({
    name: 'gengate_tasks_ended_total',
    help: 'Tasks ended by this process, by model, provider and outcome (success or fail; a cancel is a fail).',
    labelNames: ['model', 'provider', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly generation = new Histogram({
    name: 'gengate_task_generation_seconds',
    help: 'Time from a task\'s first start to its end, by model and outcome.',
    labelNames: ['model', 'outcome'] as const,
    buckets: GENERATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly upstreamCalls = new Counter({
    name: 'gengate_upstream_calls_total',
    help: 'Upstream calls (generate, start, status) by provider and operation.',
    labelNames: ['provider', 'operation'] as const,
    registers: [this.registry],
  });
  private readonly upstreamErrors = new Counter({
    name: 'gengate_upstream_errors_total',
    help: 'Upstream calls that failed, by provider, operation and error class (the UpstreamError kind, aborted or internal).',
    labelNames: ['provider', 'operation', 'error_class'] as const,
    registers: [this.registry],
  });
  private readonly upstreamDuration = new Histogram({
    name: 'gengate_upstream_call_duration_seconds',
    help: 'Latency of upstream calls by provider and operation.',
    labelNames: ['provider', 'operation'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers: [this.registry],
  });
  private readonly callbacks = new Counter({
    name: 'gengate_callbacks_total',
    help: 'Callback delivery attempts by result: delivered, retried (failed, another attempt follows) or abandoned (no further attempt).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly mails = new Counter({ name: 'gengate_mails_sent_total', help: 'Balance alert mails sent.', registers: [this.registry] });

  readonly queueWaiting = new Gauge({
    name: 'gengate_queue_waiting_jobs',
    help: 'Jobs waiting in each queue (created or retry, deferred ones included), sampled periodically.',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  readonly queueReady = new Gauge({
    name: 'gengate_queue_ready_jobs',
    help: 'Jobs in each queue that could run now (start time reached), sampled periodically.',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  readonly queueOldest = new Gauge({
    name: 'gengate_queue_oldest_ready_seconds',
    help: 'Age of the oldest job that could run now in each queue (0 when none), sampled periodically.',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  readonly queueLimit = new Gauge({
    name: 'gengate_queue_waiting_limit',
    help: 'MAX_QUEUED_JOBS: waiting generation jobs past which submissions are refused (503 overloaded).',
    registers: [this.registry],
  });
  readonly holdsOutstanding = new Gauge({
    name: 'gengate_holds_outstanding',
    help: 'Holds not yet settled or released (one per unfinished task), read at scrape time at most every 5 s.',
    registers: [this.registry],
  });
  readonly heldCredits = new Gauge({
    name: 'gengate_holds_outstanding_micro',
    help: 'Credits held by outstanding holds, in micro-units, read at scrape time at most every 5 s.',
    registers: [this.registry],
  });
  readonly tasksInFlight = new Gauge({
    name: 'gengate_tasks_in_flight',
    help: 'Unfinished tasks by state (running = admitted to a slot, queued = waiting for one), read at scrape time at most every 5 s.',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });

  /** Where the route gauges are read at scrape time (set by watchRouteHealth). */
  private routeStates: () => readonly RouteHealthState[] = () => [];
  private readonly routeAttempts = new Counter({
    name: 'gengate_route_attempts_total',
    help: 'Attempts on each route (a provider model serving a catalog model) that ended in this process.',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  private readonly routeFailures = new Counter({
    name: 'gengate_route_failures_total',
    help: 'Attempts on each route that failed in this process, by error class (the breaker counts network, server, rate_limited and timeout by default).',
    labelNames: ['route', 'error_class'] as const,
    registers: [this.registry],
  });
  readonly routeCircuit = new Gauge({
    name: 'gengate_route_circuit_state',
    help: "Each route's circuit breaker as this process sees it: 1 for its current state (closed, open or half_open), 0 for the others; shared through the database, so the same in every process within a second.",
    labelNames: ['route', 'state'] as const,
    registers: [this.registry],
    collect: () => this.collectRoutes(),
  });
  readonly routeConsecutiveFailures = new Gauge({
    name: 'gengate_route_consecutive_failures',
    help: 'Failures in a row on each route (every process), read at scrape time.',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'gengate_' });
  }

  taskSubmitted(e: { modelId: string; provider: string }): void {
    this.submitted.inc({ model: e.modelId, provider: e.provider });
  }

  submissionRefused(e: { reason: string }): void {
    this.refused.inc({ reason: e.reason });
  }

  taskStarted(e: { modelId: string; provider: string }): void {
    this.started.inc({ model: e.modelId, provider: e.provider });
  }

  taskEnded(e: { modelId: string; provider: string; outcome: string; generationMs: number | null }): void {
    this.ended.inc({ model: e.modelId, provider: e.provider, outcome: e.outcome });
    if (e.generationMs !== null) this.generation.observe({ model: e.modelId, outcome: e.outcome }, e.generationMs / 1000);
  }

  upstreamCall(e: { provider: string; operation: string; errorClass: string | null; durationMs: number }): void {
    this.upstreamCalls.inc({ provider: e.provider, operation: e.operation });
    this.upstreamDuration.observe({ provider: e.provider, operation: e.operation }, e.durationMs / 1000);
    if (e.errorClass !== null) this.upstreamErrors.inc({ provider: e.provider, operation: e.operation, error_class: e.errorClass });
  }

  callback(result: CallbackResult): void {
    this.callbacks.inc({ result });
  }

  mailSent(): void {
    this.mails.inc();
  }

  /** Counts one attempt's end on a route (MeteredRouteHealth calls it). */
  routeOutcome(o: RouteOutcome): void {
    this.routeAttempts.inc({ route: o.routeId });
    if (!o.ok) this.routeFailures.inc({ route: o.routeId, error_class: o.errorClass ?? 'unknown' });
  }

  /** The route gauges read this source's states at each scrape. */
  watchRouteHealth(states: () => readonly RouteHealthState[]): void {
    this.routeStates = states;
  }

  private collectRoutes(): void {
    for (const s of this.routeStates()) {
      for (const state of ['closed', 'open', 'half_open'] as const) this.routeCircuit.set({ route: s.routeId, state }, s.state === state ? 1 : 0);
      this.routeConsecutiveFailures.set({ route: s.routeId }, s.consecutiveFailures);
    }
  }
}
