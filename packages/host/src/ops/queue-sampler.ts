import type { Logger } from 'pino';
import type { Queryable } from '../postgres/queryable.js';

export interface QueueSample {
  /** Jobs in created or retry state, deferred ones included. */
  readonly waiting: number;
  /** Of those, the jobs whose start time has come. */
  readonly ready: number;
  /** Age of the oldest ready job, in seconds (0 when none). */
  readonly oldestReadySeconds: number;
}

const EMPTY: QueueSample = { waiting: 0, ready: 0, oldestReadySeconds: 0 };

/** One statement for every queue: counts by state over pg-boss's job table (its `name, state` index). */
export function queueStatsSql(bossSchema: string): string {
  return `select name, count(*)::int as waiting,
      count(*) filter (where start_after <= now())::int as ready,
      coalesce(extract(epoch from now() - min(created_on) filter (where start_after <= now())), 0)::float8 as oldest
    from ${quoteIdent(bossSchema)}.job
    where name = any($1::text[]) and state in ('created', 'retry')
    group by name`;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Samples the depth of the job queues every `intervalMs` (one query per process, whatever the request
 * rate): back-pressure and the queue metrics read the latest sample from memory. A failed sample keeps
 * the previous one (and is logged); `refresh()` samples now.
 */
export class QueueSampler {
  private samples = new Map<string, QueueSample>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly listeners: ((s: ReadonlyMap<string, QueueSample>) => void)[] = [];

  constructor(
    private readonly db: Queryable,
    private readonly opts: { readonly bossSchema: string; readonly queues: readonly string[]; readonly intervalMs: number; readonly logger: Logger },
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
      const { rows } = await this.db.query<{ name: string; waiting: number; ready: number; oldest: number }>(queueStatsSql(this.opts.bossSchema), [
        [...this.opts.queues],
      ]);
      const next = new Map<string, QueueSample>();
      for (const q of this.opts.queues) next.set(q, EMPTY);
      for (const r of rows) next.set(r.name, { waiting: r.waiting, ready: r.ready, oldestReadySeconds: r.oldest });
      this.samples = next;
      for (const l of this.listeners) l(next);
    } catch (err) {
      this.opts.logger.warn({ err }, 'queue depth sample failed; keeping the previous one');
    }
  }
}
