import type { JobWithMetadata, PgBoss, WorkOptions } from 'pg-boss';

/** How often the workers other than the scout poll: a backstop only (they are woken by wake-ups and by the scout). */
export const SLEEPER_POLLING_SECONDS = 60;

/** A job is "found by polling" when it was due this long before it was fetched: its wake-up never came (a delayed retry, a lost NOTIFY). */
const OVERDUE_MS = 500;

type ScoutedOptions = Omit<WorkOptions, 'localConcurrency' | 'pollingIntervalSeconds' | 'notifyPollingIntervalSeconds' | 'includeMetadata'> & {
  readonly localConcurrency: number;
  readonly pollingIntervalSeconds: number;
};

/** What wakeIdleWorker needs of pg-boss. */
export type IdleWaker = Pick<PgBoss, 'getWipData' | 'notifyWorker'>;

/** Wakes one idle worker of the queue in this process (it fetches at once); false when none is idle. */
export function wakeIdleWorker(boss: IdleWaker, queue: string): boolean {
  const idle = boss.getWipData().find((w) => w.name === queue && w.state === 'active' && w.count === 0);
  if (idle) boss.notifyWorker(idle.id);
  return idle !== undefined;
}

type LocalGroupConcurrency = NonNullable<WorkOptions['localGroupConcurrency']>;

/** A local group limit no higher than `max` (pg-boss refuses one above the call's localConcurrency). */
export function capLocalGroups(limit: LocalGroupConcurrency, max: number): LocalGroupConcurrency {
  if (typeof limit === 'number') return Math.min(limit, max);
  const tiers = limit.tiers ? Object.fromEntries(Object.entries(limit.tiers).map(([k, v]) => [k, Math.min(v, max)])) : undefined;
  return { ...limit, default: Math.min(limit.default, max), ...(tiers ? { tiers } : {}) };
}

/** Whether a job was due well before `now`: nothing woke a worker for it, polling found it. */
export function foundByPolling(job: Pick<JobWithMetadata<unknown>, 'createdOn' | 'startAfter'>, now: number): boolean {
  const due = Math.max(job.createdOn.getTime(), job.startAfter.getTime());
  return now - due > OVERDUE_MS;
}

/**
 * `boss.work` with ONE polling worker per queue in this process (the scout) instead of every worker
 * polling on its own: pg-boss gives each of a queue's `localConcurrency` workers its own polling loop, so
 * 32 idle callback workers polling every 2 s were 16 fetches a second, 8 generation workers every 0.5 s
 * another 16, whatever the load (docs/benchmarks.md, "Statements per task"). New jobs wake workers through
 * the wake-up NOTIFY (JobWakeups, wakeWorkers), so polling only has to find what nobody announced: a retry
 * whose delay has passed, a job whose wake-up was lost. The scout polls at the given interval; the other
 * workers poll every SLEEPER_POLLING_SECONDS as a backstop. When a worker takes a job that polling found,
 * it wakes one idle worker first, so a backlog of such jobs drains at the workers' speed, not the poll's.
 */
export async function workWithScout<T extends object>(
  boss: PgBoss,
  queue: string,
  options: ScoutedOptions,
  handler: (jobs: JobWithMetadata<T>[]) => Promise<void>,
): Promise<void> {
  const { localConcurrency, pollingIntervalSeconds, ...rest } = options;
  const handle = async (jobs: JobWithMetadata<T>[]): Promise<void> => {
    const now = Date.now();
    if (jobs.some((j) => foundByPolling(j, now))) wakeIdleWorker(boss, queue);
    await handler(jobs);
  };
  // pg-boss keeps one local group limit per queue, the last work() call's, and checks each call's against
  // its own localConcurrency: the scout registers a limit of at most 1, the others then the real one
  // (at most their own number).
  const { localGroupConcurrency, ...shared } = rest;
  const scout = {
    ...shared,
    ...(localGroupConcurrency === undefined ? {} : { localGroupConcurrency: capLocalGroups(localGroupConcurrency, 1) }),
    includeMetadata: true,
    localConcurrency: 1,
    pollingIntervalSeconds,
    notifyPollingIntervalSeconds: pollingIntervalSeconds,
  } as const;
  await boss.work<T, void, typeof scout>(queue, scout, handle);
  if (localConcurrency <= 1) return;
  const sleepers = {
    ...shared,
    ...(localGroupConcurrency === undefined ? {} : { localGroupConcurrency: capLocalGroups(localGroupConcurrency, localConcurrency - 1) }),
    includeMetadata: true,
    localConcurrency: localConcurrency - 1,
    pollingIntervalSeconds: Math.max(pollingIntervalSeconds, SLEEPER_POLLING_SECONDS),
    notifyPollingIntervalSeconds: Math.max(pollingIntervalSeconds, SLEEPER_POLLING_SECONDS),
  } as const;
  await boss.work<T, void, typeof sleepers>(queue, sleepers, handle);
}
