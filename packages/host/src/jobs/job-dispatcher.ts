import type { FetchGroupConcurrencyOptions, Job, JobWithMetadata, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { BOSS_SCHEMA } from '../postgres/boss-queues.js';
import type { BossDb } from '../postgres/unflushed-fetch.js';
import { runAsSettlingJob } from '../postgres/current-job.js';
import { registerLocalWaker } from '../postgres/job-wakeups.js';
import { touchHeldJobs } from './job-heartbeat.js';

/** What the dispatcher needs of pg-boss. */
export type DispatchBoss = Pick<PgBoss, 'fetch' | 'complete' | 'fail' | 'getDb' | 'on' | 'off'>;

/**
 * What a fetch returns: pg-boss's whole job row (JobWithMetadata, the default) or, with `metadata: false`,
 * only the columns a dispatch needs (Job: id, data, retry count, expiry, heartbeat, group), 8 columns
 * instead of 35 (eight of them timestamps) to send, parse and collect per job.
 */
type FetchedColumns<T, J extends Job<T>> = J extends JobWithMetadata<T> ? { readonly metadata?: true } : { readonly metadata: false };

export type JobDispatcherOptions<T, J extends Job<T> = JobWithMetadata<T>> = DispatcherSettings<T, J> & FetchedColumns<T, J>;

interface DispatcherSettings<T, J extends Job<T>> {
  readonly queue: string;
  /** Jobs this process runs at once. */
  readonly slots: number;
  /** How often an idle dispatcher looks for jobs nobody announced (delayed jobs whose time came, lost wake-ups). */
  readonly pollingIntervalMs: number;
  /** pg-boss's group limits, applied by the fetch itself (provider concurrency tiers). */
  readonly groupConcurrency?: FetchGroupConcurrencyOptions['groupConcurrency'];
  /**
   * Jobs of one group (the job's `groupId`: callbacks are grouped by user) running at once in this process,
   * as pg-boss's localGroupConcurrency: a fetch skips the groups at their cap, and the jobs of a group a
   * fetch returned beyond its cap are given back at once (giveBack: claimable again, same attempt).
   */
  readonly perGroupLimit?: number;
  /** Where the fetch runs, when not on pg-boss's own pool (unflushedFetchDb: generation and callback jobs). */
  readonly fetchDb?: BossDb;
  readonly logger: Logger;
  /** Runs one job; `signal` aborts on the job's expiry and when its claim is lost (the handler adds its own shutdown). */
  readonly handle: (job: J, signal: AbortSignal) => Promise<unknown>;
}

export interface JobDispatcher {
  /** Stops fetching; resolves when the running jobs have ended (a handler that throws fails its job: pg-boss retries it). */
  stop(): Promise<void>;
}

interface Running {
  readonly job: Job<unknown>;
  readonly claim: AbortController;
  settled: boolean;
}

/**
 * One queue's worker loop over pg-boss's fetch, instead of pg-boss's work(): one fetch statement for as
 * many jobs as there are free slots (not one per slot), one poll per interval for the whole process (not
 * one per slot), and no completion after a handler whose own committed statement completed the job
 * (runAsSettlingJob: gengate_finish_success / gengate_finish_fail), where pg-boss's loop always sends
 * one more. pg-boss stays the durable record: a job is claimed by the fetch, kept alive by a heartbeat
 * (touchHeldJobs, which skips a row its end holds) while it runs, completed or failed with its attempt fence; a crash leaves it active, and
 * pg-boss's supervisor retries it after its heartbeat lapses, as with pg-boss's own workers.
 *
 * Wake-ups (wakeWorkers, registered for this boss and queue) start a fetch at once; while the last fetch
 * came back full, a slot that frees fetches again at once (a backlog drains at the speed of the jobs).
 */
export function startJobDispatcher<T, J extends Job<T> = JobWithMetadata<T>>(boss: DispatchBoss, opts: JobDispatcherOptions<T, J>): JobDispatcher {
  const log = opts.logger.child({ component: 'job-dispatcher', queue: opts.queue });
  const running = new Map<string, Running>();
  let stopping = false;
  let fetching = false;
  let again = false;
  let backlog = false;
  let poll: NodeJS.Timeout | null = null;
  let idle: (() => void) | null = null;
  const limit = opts.perGroupLimit;
  /** Jobs running here per group (only with perGroupLimit). */
  const groups = new Map<string, number>();
  /** Groups a fetch skipped or gave jobs back for: when one of their jobs ends, fetch again (their jobs wait). */
  const waiting = new Set<string>();
  const includeMetadata = opts.metadata !== false;
  const groupOf = (job: J): string | null => (limit !== undefined ? (job.groupId ?? null) : null);

  /**
   * A fetch for the slots that freed in this turn of the event loop, once its I/O callbacks have run: the
   * jobs that end together (their ends share one statement) free their slots in one turn, and one fetch
   * takes their successors, not one fetch for the first freed slot and another for the rest.
   */
  let refetch = false;
  const pumpAfterTurn = (): void => {
    if (refetch) return;
    refetch = true;
    setImmediate(() => {
      refetch = false;
      pump();
    });
  };

  const schedulePoll = (): void => {
    if (poll) clearTimeout(poll);
    poll = stopping ? null : setTimeout(() => pump(), opts.pollingIntervalMs);
  };

  /** Fetches for the free slots; `announced`: a wake-up said jobs are ready (fetch as soon as a slot frees). */
  const pump = (announced = false): void => {
    if (stopping) return;
    if (announced && running.size >= opts.slots) backlog = true;
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    void (async () => {
      try {
        do {
          again = false;
          const free = opts.slots - running.size;
          if (free <= 0) break;
          const full = limit !== undefined ? [...groups].filter(([, n]) => n >= limit).map(([g]) => g) : [];
          for (const g of full) waiting.add(g);
          // J is the row that `includeMetadata` asks for (FetchedColumns ties the two together).
          const jobs = (await boss.fetch<T>(opts.queue, {
            batchSize: free,
            includeMetadata,
            ...(opts.groupConcurrency !== undefined ? { groupConcurrency: opts.groupConcurrency } : {}),
            ...(full.length > 0 ? { ignoreGroups: full } : {}),
            ...(opts.fetchDb ? { db: opts.fetchDb } : {}),
          })) as J[];
          backlog = jobs.length === free;
          const excess: string[] = [];
          for (const job of jobs) {
            const g = groupOf(job);
            const n = g === null ? 0 : (groups.get(g) ?? 0);
            if (g !== null && limit !== undefined && n >= limit) {
              excess.push(job.id);
              waiting.add(g);
              continue;
            }
            if (g !== null) groups.set(g, n + 1);
            start(job);
          }
          if (excess.length > 0) await giveBack(boss, opts.queue, excess);
          if (backlog) again = true;
        } while (again && !stopping);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'fetch failed; polling again');
      } finally {
        fetching = false;
        schedulePoll();
      }
    })();
  };

  const start = (job: J): void => {
    const r: Running = { job, claim: new AbortController(), settled: false };
    running.set(job.id, r);
    // The job's expiry aborts the same signal as a lost claim, with AbortSignal.timeout's reason: one
    // controller and a timer cleared when the job ends, not a timeout signal and a composite of the two
    // (their weak references and finalization registrations) for every job.
    const expiry = job.expireInSeconds > 0 ? setTimeout(() => r.claim.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), job.expireInSeconds * 1000).unref() : null;
    const attempt = { id: job.id, retryCount: job.retryCount };
    void runAsSettlingJob({ queue: opts.queue, id: job.id, attempt: job.retryCount }, () => opts.handle(job, r.claim.signal))
      .then(
        async ({ settled }) => {
          r.settled = true;
          if (!settled) await boss.complete(opts.queue, attempt);
        },
        async (err: unknown) => {
          r.settled = true;
          await boss.fail(opts.queue, attempt, { message: err instanceof Error ? err.message : String(err) });
        },
      )
      .catch((err: unknown) => log.error({ err, jobId: job.id }, 'could not settle a job; its heartbeat lapses and pg-boss retries it'))
      .finally(() => {
        if (expiry) clearTimeout(expiry);
        running.delete(job.id);
        const g = groupOf(job);
        const wasHeld = g !== null && waiting.delete(g);
        if (g !== null) {
          const n = (groups.get(g) ?? 1) - 1;
          if (n > 0) groups.set(g, n);
          else groups.delete(g);
        }
        if (running.size === 0 && idle) idle();
        if (backlog || wasHeld) pumpAfterTurn();
      });
  };

  // One heartbeat for every job running here, at half the shortest heartbeat of the queue's jobs; a job
  // whose row is locked (its end is committing) is skipped, not waited for (touchHeldJobs).
  const heartbeat = setInterval(() => {
    const held = [...running.values()].filter((r) => !r.settled && (r.job.heartbeatSeconds ?? 0) > 0);
    if (held.length === 0) return;
    touchHeldJobs(
      boss,
      opts.queue,
      held.map((r) => ({ id: r.job.id, retryCount: r.job.retryCount })),
    )
      .then(({ alive }) => {
        for (const r of held) if (!r.settled && !alive.has(r.job.id)) r.claim.abort(new Error(`job ${r.job.id} is no longer active under this worker's claim`));
      })
      .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'heartbeat failed'));
  }, HEARTBEAT_MS);
  heartbeat.unref();

  const unregister = registerLocalWaker(boss, opts.queue, () => pump(true));
  const onStopped = (): void => void stop();
  boss.on('stopped', onStopped);
  pump();

  let stopped: Promise<void> | null = null;
  // Once: a second call (pg-boss's 'stopped' after the worker's stop) waits for the first.
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      stopping = true;
      unregister();
      boss.off('stopped', onStopped);
      if (poll) clearTimeout(poll);
      if (running.size > 0) await new Promise<void>((resolve) => (idle = resolve));
      clearInterval(heartbeat);
    })());
  return { stop };
}

/** The heartbeat's period: under half pg-boss's smallest heartbeatSeconds (10). */
const HEARTBEAT_MS = 4_000;

/**
 * Gives claimed jobs back to the queue untouched, as pg-boss's work() does with a fetch's jobs beyond a
 * group's local cap (its manager's restore(), which PgBoss does not export): claimable again at the same
 * attempt (started_on cleared, so the next claim does not count a retry). Only jobs still active.
 */
export async function giveBack(boss: Pick<PgBoss, 'getDb'>, queue: string, ids: readonly string[]): Promise<void> {
  await boss
    .getDb()
    .executeSql(`update ${BOSS_SCHEMA}.job set state = 'created', started_on = null, heartbeat_on = null where name = $1 and id = any($2::uuid[]) and state = 'active'`, [queue, ids]);
}
