import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Clock, Logger, RouteBreakerOptionsInput, RouteHealth, RouteHealthState, RouteOutcome } from '@gengate/core';
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
  resolveRouteBreakerOptions,
  secondOf,
  tallyOf,
  tripReason,
  windowStart,
  type BreakerRecord,
  type FailureRun,
  type RouteBreakerOptions,
  type RouteTally,
} from '@gengate/core/internal';
import type { Queryable } from './queryable.js';
import { checkSchemaName } from './schema.js';
import * as sql from './sql/route-health.js';

export interface PgRouteHealthOptions {
  /** The breaker's rules (route-breaker.ts defaults). */
  readonly breaker?: RouteBreakerOptionsInput;
  /** How often a process writes its batch of outcomes (one statement). Default 500 ms. */
  readonly flushIntervalMs?: number;
  /** How often a process re-reads every route's state (one statement). Default 1 s. */
  readonly refreshIntervalMs?: number;
}

interface View {
  record: BreakerRecord;
  /** The window's tally as last read (flushed outcomes of every process). */
  window: RouteTally;
}

interface Pending {
  /** Per second, this process's outcomes not yet written. */
  readonly seconds: Map<number, RouteTally>;
  run: FailureRun;
}

const toRecord = (r: sql.RouteHealthRow): BreakerRecord => ({
  state: r.state,
  openUntil: r.open_until,
  cooldownMs: r.cooldown_ms,
  probeUntil: r.probe_until,
  consecutiveFailures: r.consecutive_failures,
  since: r.since,
});

const toTally = (r: sql.RouteHealthRow): RouteTally => {
  const t = emptyTally();
  return { attempts: r.attempts, failures: r.failures, latency: t.latency.map((_, i) => r.latency?.[i] ?? 0) };
};

/**
 * The routes' circuit breakers shared by every process through PostgreSQL (migration 022), with the rules
 * of core's route-breaker.ts. The hot path stays in memory: `admit` answers from the process's view (no
 * statement while closed, or while open before the cooldown ends), `record` adds to an in-memory batch.
 * A timer writes the batch in one statement every `flushIntervalMs` and, when the window then calls for
 * it, opens the breaker by one compare-and-set; another re-reads every route every `refreshIntervalMs`
 * (polling, not LISTEN/NOTIFY: one cheap statement a second per process, no connection held per process,
 * nothing lost when a connection drops). Taking the half-open probe is a compare-and-set too, so exactly
 * one caller in the deployment gets it; this process's next outcome on that route is the probe's.
 * Timers start on first use and are unref'd; close() stops them and writes what is left.
 */
export class PgRouteHealth implements RouteHealth {
  readonly options: RouteBreakerOptions;
  private readonly schema: string;
  private readonly view = new Map<string, View>();
  private readonly pending = new Map<string, Pending>();
  /** Routes whose row this process knows exists. */
  private readonly known = new Set<string>();
  /** Probes this process holds: route -> owner id. */
  private readonly probes = new Map<string, string>();
  private readonly flushMs: number;
  private readonly refreshMs: number;
  private timers: NodeJS.Timeout[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private lastPurge = 0;
  private closed = false;
  /**
   * The async context the process created this in: the timers start lazily, often inside a request, and
   * must not carry that request's context (its log scope, its statement count) for the process's life.
   */
  private readonly home = new AsyncResource('gengate.route-health');

  constructor(
    private readonly db: Queryable,
    schema: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: PgRouteHealthOptions = {},
  ) {
    this.schema = checkSchemaName(schema);
    this.options = resolveRouteBreakerOptions(options.breaker);
    this.flushMs = options.flushIntervalMs ?? 500;
    this.refreshMs = options.refreshIntervalMs ?? 1_000;
  }

  private start(): void {
    if (this.timers.length > 0 || this.closed) return;
    this.home.runInAsyncScope(() => this.startTimers());
  }

  private startTimers(): void {
    const every = (ms: number, fn: () => Promise<void>) => {
      let running = false;
      const t = setInterval(() => {
        if (running) return;
        running = true;
        fn().finally(() => (running = false));
      }, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.flushMs, () => this.flush());
    every(this.refreshMs, () => this.refresh());
    void this.refresh();
  }

  private viewOf(routeId: string): View {
    return this.view.get(routeId) ?? { record: CLOSED, window: emptyTally() };
  }

  async admit(routeId: string): Promise<boolean> {
    this.start();
    const now = this.clock.now();
    const decision = admitDecision(this.viewOf(routeId).record, now);
    if (decision !== 'take_probe') return decision === 'admit';
    const owner = randomUUID();
    try {
      const { rows } = await this.db.query<sql.RouteHealthRow>(sql.takeProbeSql(this.schema), [routeId, now, new Date(now.getTime() + this.options.probeLeaseMs), owner]);
      const row = rows[0];
      if (!row) {
        // Another caller took it (or the breaker closed meanwhile): the next refresh tells which.
        void this.refresh();
        return false;
      }
      this.setRecord(routeId, toRecord(row));
      this.probes.set(routeId, owner);
      return true;
    } catch (err) {
      this.logger.warn({ err, routeId }, 'route health: taking the half-open probe failed; the route stays refused');
      return false;
    }
  }

  record(outcome: RouteOutcome): void {
    this.start();
    const kind = classifyOutcome(outcome, this.options);
    const probe = this.probes.get(outcome.routeId);
    if (probe !== undefined) {
      this.probes.delete(outcome.routeId);
      void this.endProbe(outcome.routeId, probe, kind);
    }
    if (kind === 'ignored') return;
    let p = this.pending.get(outcome.routeId);
    if (!p) {
      p = { seconds: new Map(), run: NO_RUN };
      this.pending.set(outcome.routeId, p);
    }
    const second = secondOf(outcome.at);
    p.seconds.set(second, addTally(p.seconds.get(second) ?? emptyTally(), tallyOf(kind, outcome.latencyMs)));
    p.run = extendRun(p.run, kind);
    // A failure that may open the breaker is written now, not at the next tick: every process learns sooner.
    const v = this.viewOf(outcome.routeId);
    if (kind === 'failure' && v.record.state === 'closed') {
      const window = [...p.seconds.values()].reduce(addTally, v.window);
      if (tripReason(consecutiveAfter(v.record.consecutiveFailures, p.run), window, this.options) !== null) void this.flush();
    }
  }

  states(): readonly RouteHealthState[] {
    this.start();
    const routes = new Set([...this.view.keys(), ...this.pending.keys()]);
    return [...routes].map((routeId) => {
      const v = this.viewOf(routeId);
      const p = this.pending.get(routeId);
      const w = p ? [...p.seconds.values()].reduce(addTally, v.window) : v.window;
      return {
        routeId,
        state: v.record.state,
        openUntil: v.record.state === 'open' ? v.record.openUntil : null,
        consecutiveFailures: p ? consecutiveAfter(v.record.consecutiveFailures, p.run) : v.record.consecutiveFailures,
        recentAttempts: w.attempts,
        recentFailures: w.failures,
        latencyP50Ms: latencyP50(w.latency),
      };
    });
  }

  /** Writes the batch (one statement), then opens the breakers whose window now calls for it. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushNow());
    return this.flushing;
  }

  private async flushNow(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = new Map(this.pending);
    this.pending.clear();
    const now = this.clock.now();
    const from = windowStart(now, null, this.options);
    let rows: sql.RouteHealthRow[];
    try {
      const unknown = [...batch.keys()].filter((r) => !this.known.has(r));
      if (unknown.length > 0) {
        await this.db.query(sql.ensureRoutesSql(this.schema), [unknown]);
        for (const r of unknown) this.known.add(r);
      }
      const tallies = [...batch].flatMap(([route_id, p]) => [...p.seconds].map(([second, t]) => ({ route_id, second, attempts: t.attempts, failures: t.failures, latency: t.latency })));
      const runs = [...batch].map(([route_id, p]) => ({ route_id, saw_success: p.run.sawSuccess, trailing_failures: p.run.trailingFailures }));
      ({ rows } = await this.db.query<sql.RouteHealthRow>(sql.flushSql(this.schema), [JSON.stringify(tallies), JSON.stringify(runs), from]));
    } catch (err) {
      this.requeue(batch);
      this.logger.warn({ err }, 'route health: writing outcomes failed; they are kept for the next attempt');
      return;
    }
    // Written: what follows may fail without the batch being written twice.
    try {
      for (const row of rows) {
        const record = toRecord(row);
        // The statement read the window before its own writes: add this batch's seconds inside the window.
        const since = windowStart(now, record.since, this.options);
        const mine = [...(batch.get(row.route_id)?.seconds ?? [])].filter(([s]) => s >= since).map(([, t]) => t);
        const window = mine.reduce(addTally, toTally(row));
        this.view.set(row.route_id, { record, window });
        if (record.state === 'closed' && tripReason(record.consecutiveFailures, window, this.options) !== null) await this.open(row.route_id, record, now);
      }
      if (now.getTime() - this.lastPurge > this.options.windowMs) {
        this.lastPurge = now.getTime();
        await this.db.query(sql.purgeSecondsSql(this.schema), [from - 1]);
      }
    } catch (err) {
      this.logger.warn({ err }, 'route health: opening a breaker or purging old tallies failed; the next flush tries again');
    }
  }

  /** Puts a batch that could not be written back in front of what came meanwhile. */
  private requeue(batch: Map<string, Pending>): void {
    for (const [route, p] of batch) {
      const later = this.pending.get(route);
      if (later) {
        for (const [s, t] of later.seconds) p.seconds.set(s, addTally(p.seconds.get(s) ?? emptyTally(), t));
        p.run = later.run.sawSuccess ? later.run : { sawSuccess: p.run.sawSuccess, trailingFailures: p.run.trailingFailures + later.run.trailingFailures };
      }
      this.pending.set(route, p);
    }
  }

  private async open(routeId: string, record: BreakerRecord, now: Date): Promise<void> {
    const next = opened(record, now, this.options, false);
    const { rows } = await this.db.query<sql.RouteHealthRow>(sql.openSql(this.schema), [routeId, next.openUntil, next.cooldownMs]);
    if (rows[0]) {
      this.setRecord(routeId, toRecord(rows[0]));
      this.logger.warn({ routeId, openUntil: next.openUntil }, 'route health: circuit opened');
    }
  }

  private async endProbe(routeId: string, owner: string, kind: 'success' | 'failure' | 'ignored'): Promise<void> {
    const now = this.clock.now();
    try {
      let rows: sql.RouteHealthRow[];
      if (kind === 'success') {
        ({ rows } = await this.db.query<sql.RouteHealthRow>(sql.closeAfterProbeSql(this.schema), [routeId, owner, closedAfterProbe(now).since]));
        // The window restarts: what this process batched before the close is dropped from the view.
        if (rows[0]) this.view.set(routeId, { record: toRecord(rows[0]), window: emptyTally() });
        return;
      }
      if (kind === 'failure') {
        const next = opened(this.viewOf(routeId).record, now, this.options, true);
        ({ rows } = await this.db.query<sql.RouteHealthRow>(sql.reopenAfterProbeSql(this.schema), [routeId, owner, next.openUntil, next.cooldownMs]));
      } else {
        ({ rows } = await this.db.query<sql.RouteHealthRow>(sql.releaseProbeSql(this.schema), [routeId, owner]));
      }
      if (rows[0]) this.setRecord(routeId, toRecord(rows[0]));
    } catch (err) {
      // The probe's lease runs out, and another caller probes then.
      this.logger.warn({ err, routeId }, 'route health: recording the probe’s outcome failed');
    }
  }

  private setRecord(routeId: string, record: BreakerRecord): void {
    this.view.set(routeId, { record, window: this.viewOf(routeId).window });
  }

  /** Re-reads every route (one statement). */
  async refresh(): Promise<void> {
    try {
      const from = windowStart(this.clock.now(), null, this.options);
      const { rows } = await this.db.query<sql.RouteHealthRow>(sql.readRoutesSql(this.schema), [from]);
      for (const row of rows) {
        this.known.add(row.route_id);
        this.view.set(row.route_id, { record: toRecord(row), window: toTally(row) });
      }
    } catch (err) {
      this.logger.warn({ err }, 'route health: reading the shared state failed; the last view stands');
    }
  }

  /** Stops the timers and writes what is left. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.flush();
  }
}
