import type { Logger } from 'pino';
import type { Queryable } from '../postgres/queryable.js';
import { quoteIdent } from '../postgres/schema.js';

export interface QueueSample {
  /** Jobs in created or retry state, deferred ones included (exact up to the cap for the counted queue, else pg-boss's cached count). */
  readonly waiting: number;
  /** Of those, the jobs whose start time has come (pg-boss's cached count, refreshed by its monitor every few seconds). */
  readonly ready: number;
  /** Age of the oldest ready job, in seconds (0 when none). */
  readonly oldestReadySeconds: number;
}

const EMPTY: QueueSample = { waiting: 0, ready: 0, oldestReadySeconds: 0 };

/**
 * One statement for every queue, each part index-bounded:
 * - pg-boss's own cached counts (its monitor refreshes them every few seconds: O(1) to read, a little stale);
 * - for the gated queue, an exact count of waiting jobs that stops at `cap` (the back-pressure limit), so
 *   it costs at most `cap` index entries however large the backlog;
 * - the oldest ready job, the first entry of pg-boss's fetch index (name, priority, created_on).
 */
export function queueStatsSql(bossSchema: string): string {
  const b = quoteIdent(bossSchema);
  return `select q.name, q.queued_count as cached_waiting, q.ready_count as cached_ready,
      case when q.name = $2 then (select count(*) from (select 1 from ${b}.job j
        where j.name = q.name and j.state < 'active' and not j.blocked limit $3) c)::int end as counted,
      coalesce((select extract(epoch from now() - j.created_on) from ${b}.job j
        where j.name = q.name and j.state < 'active' and not j.blocked and j.start_after <= now()
        order by j.priority desc, j.created_on limit 1), 0)::float8 as oldest
    from ${b}.queue q where q.name = any($1::text[])`;
}

/**
 * Samples the depth of the job queues every `intervalMs` (one query per process, whatever the request
 * rate, costing at most `countCap` index entries): back-pressure and the queue metrics read the latest
 * sample from memory. A failed sample keeps
 * the previous one (and is logged); `refresh()` samples now.
 */
export class QueueSampler {
  private samples = new Map<string, QueueSample>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly listeners: ((s: ReadonlyMap<string, QueueSample>) => void)[] = [];

  constructor(
    private readonly db: Queryable,
    private readonly opts: {
      readonly bossSchema: string;
      readonly queues: readonly string[];
      /** The queue whose waiting jobs are counted exactly, up to `countCap` (back-pressure reads it). */
      readonly counted: string;
      readonly countCap: number;
      readonly intervalMs: number;
      readonly logger: Logger;
    },
  ) {}

  get(queue: string): QueueSample {
    return this.samples.get(queue) ?? EMPTY;
  }

  /** Called after every sample (the metrics gauges follow it). */
  onSample(listener: (s: ReadonlyMap<string, QueueSample>) => void): void {
    this.listeners.push(listener);
  }

  /** Samples now; concurrent calls share one query. */
  refresh(): Promise<void> {
    this.running ??= this.sample().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async start(): Promise<void> {
    await this.refresh();
    const tick = () => {
      this.timer = setTimeout(() => void this.refresh().finally(() => this.timer && tick()), this.opts.intervalMs);
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async sample(): Promise<void> {
    try {
      const { rows } = await this.db.query<{ name: string; cached_waiting: number; cached_ready: number; counted: number | null; oldest: number }>(
        queueStatsSql(this.opts.bossSchema),
        [[...this.opts.queues], this.opts.counted, this.opts.countCap],
      );
      const next = new Map<string, QueueSample>();
      for (const q of this.opts.queues) next.set(q, EMPTY);
      for (const r of rows) {
        // Below the cap the count is exact; at the cap the backlog is at least that, and pg-boss's cache may know more.
        const waiting = r.counted === null ? r.cached_waiting : r.counted < this.opts.countCap ? r.counted : Math.max(r.counted, r.cached_waiting);
        next.set(r.name, { waiting, ready: Math.min(r.cached_ready, waiting), oldestReadySeconds: r.oldest });
      }
      this.samples = next;
      for (const l of this.listeners) l(next);
    } catch (err) {
      this.opts.logger.warn({ err }, 'queue depth sample failed; keeping the previous one');
    }
  }
}
