import { z } from 'zod';
import type { CircuitState, RouteOutcome } from '../ports/route-health.js';

/**
 * The circuit breaker's rules for one route, as pure functions over plain records (clock passed in, no
 * I/O): what counts as a failure, when a closed breaker opens, how long it stays open, and how the one
 * half-open probe decides. `InProcessRouteHealth` (memory/) and the PostgreSQL-shared breaker of the host
 * both apply exactly these functions; the database only stores the record and arbitrates the transitions.
 */

/** The error classes that are the route's fault: unavailable (network), 5xx (server), 429 (rate_limited), timeout (the upstream's, or the gateway's deadline before an answer). */
export const DEFAULT_FAILURE_CLASSES = ['network', 'server', 'rate_limited', 'timeout', 'deadline'] as const;

/** Attempts that say nothing about the route: cancelled by the gateway or its user, or a gateway bug. */
const IGNORED_CLASSES: ReadonlySet<string> = new Set(['aborted', 'internal']);

const optionsSchema = z
  .object({
    /** Open after this many failures in a row (any process). Default 5. */
    consecutiveFailures: z.number().int().min(1).default(5),
    /** Open when failures are at least this percentage of the window's attempts... Default 50. */
    errorRatePercent: z.number().int().min(1).max(100).default(50),
    /** ...once the window holds at least this many attempts (also the minimum for the latency rule). Default 20. */
    minAttempts: z.number().int().min(1).default(20),
    /** The sliding window, in ms (counted in whole seconds). Default 30 s. */
    windowMs: z.number().int().min(1_000).default(30_000),
    /** Open when the window's latency p50 exceeds this many ms (null: no latency rule, the default: routes differ too much). */
    latencyP50Ms: z.number().int().min(1).nullable().default(null),
    /** How long the breaker stays open the first time. Default 15 s. */
    cooldownMs: z.number().int().min(1).default(15_000),
    /** Each failed probe doubles the cooldown, up to this. Default 2 min. */
    maxCooldownMs: z.number().int().min(1).default(120_000),
    /** A probe that never reports (its process died) lets another probe through after this. Default 60 s. */
    probeLeaseMs: z.number().int().min(1).default(60_000),
    /** Error classes counted as the route's failures (others count as the route answering). */
    failureClasses: z.array(z.string().min(1)).default([...DEFAULT_FAILURE_CLASSES]),
  })
  .strict()
  .refine((o) => o.maxCooldownMs >= o.cooldownMs, { message: 'maxCooldownMs must be at least cooldownMs', path: ['maxCooldownMs'] });

export type RouteBreakerOptions = Readonly<z.output<typeof optionsSchema>>;
export type RouteBreakerOptionsInput = z.input<typeof optionsSchema>;

/** The options over their defaults; throws a ZodError naming the bad field. */
export function resolveRouteBreakerOptions(input: RouteBreakerOptionsInput = {}): RouteBreakerOptions {
  return optionsSchema.parse(input);
}

/** What one outcome means for the route's health. */
export type OutcomeKind = 'success' | 'failure' | 'ignored';

export function classifyOutcome(outcome: Pick<RouteOutcome, 'ok' | 'errorClass'>, options: RouteBreakerOptions): OutcomeKind {
  if (outcome.ok || outcome.errorClass === null) return 'success';
  if (options.failureClasses.includes(outcome.errorClass)) return 'failure';
  // A content-policy refusal or an invalid request: the route answered, it is not its fault.
  return IGNORED_CLASSES.has(outcome.errorClass) ? 'ignored' : 'success';
}

/** Upper bounds (ms) of the latency histogram's buckets; one more bucket holds everything above the last. */
export const LATENCY_BOUNDS_MS: readonly number[] = [100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000];

export function latencyBucket(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i === -1 ? LATENCY_BOUNDS_MS.length : i;
}

/** Attempts, failures and the latency histogram of a route over some span. */
export interface RouteTally {
  readonly attempts: number;
  readonly failures: number;
  /** Counts per latency bucket (LATENCY_BOUNDS_MS.length + 1 entries). */
  readonly latency: readonly number[];
}

export const emptyTally = (): RouteTally => ({ attempts: 0, failures: 0, latency: new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0) });

export function addTally(a: RouteTally, b: RouteTally): RouteTally {
  return { attempts: a.attempts + b.attempts, failures: a.failures + b.failures, latency: a.latency.map((n, i) => n + (b.latency[i] ?? 0)) };
}

/** One counted outcome as a tally. */
export function tallyOf(kind: 'success' | 'failure', latencyMs: number): RouteTally {
  const t = emptyTally();
  const latency = [...t.latency];
  latency[latencyBucket(latencyMs)] = 1;
  return { attempts: 1, failures: kind === 'failure' ? 1 : 0, latency };
}

/**
 * The p50 latency of a histogram, as the upper bound of the bucket that holds the median (so it reads "at
 * most"); above the last bound, twice the last bound. Null without any attempt.
 */
export function latencyP50(latency: readonly number[]): number | null {
  const total = latency.reduce((s, n) => s + n, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let i = 0; i < latency.length; i++) {
    seen += latency[i] ?? 0;
    if (seen * 2 >= total) return LATENCY_BOUNDS_MS[i] ?? 2 * (LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] ?? 0);
  }
  return null;
}

/** Windows are counted in whole seconds: the bucket of an instant. */
export const secondOf = (at: Date): number => Math.floor(at.getTime() / 1000);

/** The first second inside the window ending now, not before the breaker last closed (`since`). */
export function windowStart(now: Date, since: Date | null, options: RouteBreakerOptions): number {
  const start = secondOf(now) - Math.ceil(options.windowMs / 1000) + 1;
  return since === null ? start : Math.max(start, secondOf(since));
}

export type TripReason = 'consecutive_failures' | 'error_rate' | 'latency';

/** Why a closed breaker must open now, or null. */
export function tripReason(consecutiveFailures: number, window: RouteTally, options: RouteBreakerOptions): TripReason | null {
  if (consecutiveFailures >= options.consecutiveFailures) return 'consecutive_failures';
  if (window.attempts < options.minAttempts) return null;
  if (window.failures * 100 >= window.attempts * options.errorRatePercent) return 'error_rate';
  const p50 = latencyP50(window.latency);
  if (options.latencyP50Ms !== null && p50 !== null && p50 > options.latencyP50Ms) return 'latency';
  return null;
}

/** A batch of counted outcomes, in order, as the consecutive-failure rule needs it. */
export interface FailureRun {
  /** Did any success come in the batch? */
  readonly sawSuccess: boolean;
  /** Failures after the batch's last success (all of them without one). */
  readonly trailingFailures: number;
}

export const NO_RUN: FailureRun = { sawSuccess: false, trailingFailures: 0 };

export function extendRun(run: FailureRun, kind: 'success' | 'failure'): FailureRun {
  return kind === 'success' ? { sawSuccess: true, trailingFailures: 0 } : { sawSuccess: run.sawSuccess, trailingFailures: run.trailingFailures + 1 };
}

/** Consecutive failures after a batch: a success in it restarts the count. */
export function consecutiveAfter(previous: number, run: FailureRun): number {
  return run.sawSuccess ? run.trailingFailures : previous + run.trailingFailures;
}

/** The breaker's state of one route (what the database stores, what each process caches). */
export interface BreakerRecord {
  readonly state: CircuitState;
  /** Open: when a probe may go through. */
  readonly openUntil: Date | null;
  /** The cooldown of the current (or last) opening, in ms; 0 while it never opened since closing. */
  readonly cooldownMs: number;
  /** Half-open: the probe's lease (another probe may go after it). */
  readonly probeUntil: Date | null;
  readonly consecutiveFailures: number;
  /** When the breaker last closed after a probe: the window counts nothing before. */
  readonly since: Date | null;
}

export const CLOSED: BreakerRecord = { state: 'closed', openUntil: null, cooldownMs: 0, probeUntil: null, consecutiveFailures: 0, since: null };

export type AdmitDecision = 'admit' | 'refuse' | 'take_probe';

/** What an attempt asking now gets: closed admits; open refuses until the cooldown ends; then one probe. */
export function admitDecision(record: BreakerRecord, now: Date): AdmitDecision {
  if (record.state === 'closed') return 'admit';
  if (record.state === 'open') return record.openUntil !== null && now < record.openUntil ? 'refuse' : 'take_probe';
  return record.probeUntil !== null && now < record.probeUntil ? 'refuse' : 'take_probe';
}

/** Opened now: for the base cooldown after tripping, twice the last one (capped) after a failed probe. */
export function opened(record: BreakerRecord, now: Date, options: RouteBreakerOptions, afterProbe: boolean): BreakerRecord {
  const cooldownMs = afterProbe ? Math.min(Math.max(record.cooldownMs, options.cooldownMs) * 2, options.maxCooldownMs) : options.cooldownMs;
  return { ...record, state: 'open', openUntil: new Date(now.getTime() + cooldownMs), cooldownMs, probeUntil: null };
}

/** Half-open with the probe taken by the caller until its lease ends. */
export function probing(record: BreakerRecord, now: Date, options: RouteBreakerOptions): BreakerRecord {
  return { ...record, state: 'half_open', openUntil: null, probeUntil: new Date(now.getTime() + options.probeLeaseMs) };
}

/** Half-open with the probe given back (it ended saying nothing about the route): the next caller probes. */
export function probeReleased(record: BreakerRecord): BreakerRecord {
  return { ...record, probeUntil: null };
}

/** Closed after a successful probe: counts restart, and the window forgets what came before. */
export function closedAfterProbe(now: Date): BreakerRecord {
  return { ...CLOSED, since: now };
}
