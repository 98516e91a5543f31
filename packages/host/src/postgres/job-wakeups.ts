import { inject, injectable } from 'inversify';
import type { PgBoss } from 'pg-boss';
import { HOST_TOKENS } from '../host-tokens.js';
import type { PreparedQueryable } from './queryable.js';

/** The channel on which a committed job announces itself: payload `<queue> <count>`. */
export const JOBS_READY_CHANNEL = 'gengate_jobs_ready';

/** Announces each queue's new jobs: $2 the queues, $3 how many each got. */
const JOBS_READY_TEXT = `select pg_notify($1, q || ' ' || n) from unnest($2::text[], $3::int[]) as r(q, n)`;

/**
 * Wakes the workers of a queue after the transaction that added its jobs has committed: one NOTIFY per
 * event-loop turn, carrying how many jobs each queue got, so each worker process wakes that many of its
 * workers (wakeWorkers), not all of them.
 *
 * Why not pg-boss's per-queue `notify`? It sends the NOTIFY inside the inserting transaction, and
 * PostgreSQL serializes the commits of all transactions that sent a NOTIFY, WAL flush included, on one
 * database-wide lock: every submission of every user would commit one after another. And it wakes every
 * worker of the queue for each job: with 8 idle workers, 7 empty fetches per job. A NOTIFY sent after the
 * commit, in a transaction of its own that writes nothing, holds that lock only for an instant. A lost
 * wake-up only costs latency: workers also poll.
 */
@injectable()
export class JobWakeups {
  private readonly pending = new Map<string, number>();
  private scheduled = false;

  constructor(@inject(HOST_TOKENS.Pool) private readonly db: PreparedQueryable) {}

  wake(queue: string, jobs = 1): void {
    this.pending.set(queue, (this.pending.get(queue) ?? 0) + jobs);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    const ready = [...this.pending];
    this.pending.clear();
    this.scheduled = false;
    // A named prepared statement: planning it (unnest over two arrays) took longer than running it.
    this.db
      .query({ name: 'gg_jobs_ready', text: JOBS_READY_TEXT, values: [JOBS_READY_CHANNEL, ready.map(([q]) => q), ready.map(([, n]) => n)] })
      .catch(() => undefined);
  }
}

/**
 * The statement that announces one job of `queue`, to send right after the COMMIT of the transaction
 * that added it (the `after` of pipelinedStatement or pipelinedTransaction), when `condition` (SQL over $3) holds.
 */
export function jobReadyStatement(queue: string, condition?: { readonly sql: string; readonly value: unknown }): { text: string; values: unknown[] } {
  return condition
    ? { text: `select pg_notify($1, $2) where ${condition.sql}`, values: [JOBS_READY_CHANNEL, `${queue} 1`, condition.value] }
    : { text: 'select pg_notify($1, $2)', values: [JOBS_READY_CHANNEL, `${queue} 1`] };
}

/** What wakeWorkers needs of pg-boss. */
export type WorkerWaker = Pick<PgBoss, 'getWipData' | 'notifyWorker'>;

const localWakers = new WeakMap<object, Map<string, () => void>>();

/**
 * Registers the waker of a queue that this process works with a loop of its own (startJobDispatcher),
 * not with pg-boss's work(): wakeWorkers calls it instead of notifying pg-boss's workers. Returns the unregistration.
 */
export function registerLocalWaker(boss: object, queue: string, wake: () => void): () => void {
  const wakers = localWakers.get(boss) ?? new Map<string, () => void>();
  localWakers.set(boss, wakers);
  wakers.set(queue, wake);
  return () => {
    if (wakers.get(queue) === wake) wakers.delete(queue);
  };
}

/** The waker registered for `queue` of this boss, if any (registerLocalWaker). */
export function localWakerOf(boss: object, queue: string): (() => void) | undefined {
  return localWakers.get(boss)?.get(queue);
}

/** The queues of this boss worked by a loop of their own (registerLocalWaker). */
export function locallyWokenQueues(boss: object): string[] {
  return [...(localWakers.get(boss)?.keys() ?? [])];
}

/**
 * Wakes `jobs` workers of `queue` in this process: idle ones first (they fetch at once), then busy ones
 * (they fetch again as soon as their job ends instead of after their polling interval). A queue with a
 * dispatcher of its own (registerLocalWaker) is woken once: its one fetch takes as many jobs as it has free slots.
 */
export function wakeWorkers(boss: WorkerWaker, queue: string, jobs: number): number {
  const local = localWakerOf(boss, queue);
  if (local) {
    if (jobs > 0) local();
    return jobs > 0 ? 1 : 0;
  }
  const workers = boss.getWipData().filter((w) => w.name === queue && w.state === 'active');
  const chosen = [...workers.filter((w) => w.count === 0), ...workers.filter((w) => w.count > 0)].slice(0, Math.max(0, jobs));
  for (const w of chosen) boss.notifyWorker(w.id);
  return chosen.length;
}

/** Parses a JOBS_READY_CHANNEL payload; null when it is not one. */
export function parseJobsReady(payload: string | undefined): { queue: string; jobs: number } | null {
  const m = /^(\S+) (\d{1,6})$/.exec(payload ?? '');
  return m?.[1] && m[2] ? { queue: m[1], jobs: Number(m[2]) } : null;
}
