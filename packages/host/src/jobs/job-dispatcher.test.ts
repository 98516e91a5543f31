import type { Job as PlainJob, JobWithMetadata } from 'pg-boss';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { jobSettled } from '../postgres/current-job.js';
import { wakeWorkers } from '../postgres/job-wakeups.js';
import { startJobDispatcher, type DispatchBoss } from './job-dispatcher.js';

type Job = JobWithMetadata<{ n: number }>;

/** A pg-boss stand-in: a queue of ready jobs handed out by fetch, and every settle recorded. */
function fakeBoss(ready: Job[]) {
  const fetches: number[] = [];
  const metadata: (boolean | undefined)[] = [];
  const ignored: (string[] | undefined)[] = [];
  const restored: string[] = [];
  const completed: string[] = [];
  const failed: string[] = [];
  let fetched: () => void = () => undefined;
  const boss = {
    fetch: vi.fn(async (_queue: string, opts: { batchSize?: number; ignoreGroups?: string[]; includeMetadata?: boolean }) => {
      fetches.push(opts.batchSize ?? 1);
      metadata.push(opts.includeMetadata);
      ignored.push(opts.ignoreGroups);
      const skip = new Set(opts.ignoreGroups ?? []);
      const jobs = ready.filter((j) => !skip.has(j.groupId ?? '')).slice(0, opts.batchSize ?? 1);
      for (const j of jobs) ready.splice(ready.indexOf(j), 1);
      fetched();
      return jobs;
    }),
    // giveBack's statement: the jobs become claimable again.
    getDb: () => ({
      executeSql: vi.fn(async (_sql: string, values: [string, string[]]) => {
        restored.push(...values[1]);
        ready.unshift(...values[1].map((id) => byId.get(id) as Job));
        return { rows: [] };
      }),
    }),
    complete: vi.fn(async (_q: string, a: { id: string }) => {
      completed.push(a.id);
      return {};
    }),
    fail: vi.fn(async (_q: string, a: { id: string }) => {
      failed.push(a.id);
      return {};
    }),
    on: vi.fn(),
    off: vi.fn(),
  };
  const byId = new Map(ready.map((j) => [j.id, j]));
  const nextFetch = () => new Promise<void>((resolve) => (fetched = resolve));
  return { boss: boss as unknown as DispatchBoss, ready, fetches, metadata, ignored, restored, completed, failed, nextFetch };
}

const job = (id: string, n: number, groupId?: string): Job => ({ id, name: 'q', data: { n }, groupId, retryCount: 0, expireInSeconds: 60, heartbeatSeconds: 10 }) as unknown as Job;
const logger = pino({ level: 'silent' });

describe('startJobDispatcher', () => {
  it('fetches every free slot in one statement, and completes only the jobs whose handler did not settle them', async () => {
    const f = fakeBoss([job('a', 1), job('b', 2), job('c', 3)]);
    const done = new Set<string>();
    let allDone: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (allDone = resolve));
    const d = startJobDispatcher<{ n: number }>(f.boss, {
      queue: 'q',
      slots: 4,
      pollingIntervalMs: 60_000,
      logger,
      handle: async (j) => {
        if (j.data.n === 1) jobSettled(); // as gengate_finish_success does in its commit
        if (j.data.n === 3) throw new Error('shutting down');
        done.add(j.id);
        if (done.size === 2) setImmediate(allDone);
      },
    });
    await finished;
    await d.stop();
    expect(f.fetches[0]).toBe(4);
    expect(f.metadata[0]).toBe(true);
    expect(f.completed).toEqual(['b']);
    expect(f.failed).toEqual(['c']);
  });

  it('fetches only the columns a dispatch needs when the handler takes no metadata', async () => {
    const f = fakeBoss([job('a', 1), job('b', 2)]);
    const seen: string[] = [];
    let allDone: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (allDone = resolve));
    const d = startJobDispatcher<{ n: number }, PlainJob<{ n: number }>>(f.boss, {
      queue: 'q-plain',
      slots: 2,
      pollingIntervalMs: 60_000,
      logger,
      metadata: false,
      handle: async (j) => {
        seen.push(j.id);
        if (seen.length === 2) setImmediate(allDone);
      },
    });
    await finished;
    await d.stop();
    expect(f.metadata[0]).toBe(false);
    expect(seen.sort()).toEqual(['a', 'b']);
    expect(f.completed.sort()).toEqual(['a', 'b']);
  });

  it('fetches at once when woken, and again as soon as a slot frees while fetches come back full', async () => {
    const f = fakeBoss([]);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ran: number[] = [];
    const d = startJobDispatcher<{ n: number }>(f.boss, {
      queue: 'q-wake',
      slots: 1,
      pollingIntervalMs: 60_000,
      logger,
      handle: async (j) => {
        ran.push(j.data.n);
        if (j.data.n === 1) await gate;
      },
    });
    await vi.waitFor(() => expect(f.fetches).toHaveLength(1)); // the first, empty fetch at start
    // Two jobs committed elsewhere and announced: one fetch takes the one free slot's job at once (the poll is a minute away).
    f.ready.push(job('x', 1), job('y', 2));
    const fetched = f.nextFetch();
    expect(wakeWorkers(f.boss as unknown as Parameters<typeof wakeWorkers>[0], 'q-wake', 2)).toBe(1);
    await fetched;
    await vi.waitFor(() => expect(ran).toEqual([1]));
    // The fetch came back full: the slot's end fetches again without waiting for the poll.
    const second = f.nextFetch();
    release();
    await second;
    await vi.waitFor(() => expect(ran).toEqual([1, 2]));
    await d.stop();
    expect(f.completed).toEqual(['x', 'y']);
  });

  it('runs at most perGroupLimit jobs of one group at once: skips the full group in the next fetch, gives back its excess, fetches it again when one ends', async () => {
    const f = fakeBoss([job('a1', 1, 'alice'), job('a2', 2, 'alice'), job('a3', 3, 'alice'), job('b1', 4, 'bob')]);
    const gates = new Map<string, () => void>();
    const running = new Set<string>();
    let most = 0;
    const ran: string[] = [];
    const d = startJobDispatcher<{ n: number }>(f.boss, {
      queue: 'q-groups',
      slots: 4,
      perGroupLimit: 2,
      pollingIntervalMs: 60_000,
      logger,
      handle: async (j) => {
        ran.push(j.id);
        running.add(j.id);
        most = Math.max(most, [...running].filter((id) => id.startsWith('a')).length);
        await new Promise<void>((resolve) => gates.set(j.id, resolve));
        running.delete(j.id);
      },
    });
    // One fetch of 4 returned alice's 3 jobs and bob's: alice's third went back; the next fetch (it came back full) skipped alice.
    await vi.waitFor(() => expect(f.fetches).toEqual([4, 1]));
    expect(f.restored).toEqual(['a3']);
    expect(f.ignored).toEqual([undefined, ['alice']]);
    expect(ran.sort()).toEqual(['a1', 'a2', 'b1']);
    // One of alice's jobs ends: her waiting job is fetched at once (the poll is a minute away).
    gates.get('a1')?.();
    await vi.waitFor(() => expect(ran).toContain('a3'));
    expect(most).toBe(2);
    for (const id of ['a2', 'a3', 'b1']) gates.get(id)?.();
    await d.stop();
    expect(f.completed.sort()).toEqual(['a1', 'a2', 'a3', 'b1']);
  });

  it('jobs that end in the same turn free their slots for one fetch, not one fetch each', async () => {
    const f = fakeBoss([job('a', 1), job('b', 2), job('c', 3), job('d', 4), job('e', 5), job('f', 6), job('g', 7)]);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const d = startJobDispatcher<{ n: number }>(f.boss, {
      queue: 'q-turn',
      slots: 3,
      pollingIntervalMs: 60_000,
      logger,
      handle: async (j) => {
        ran.push(j.id);
        if (j.data.n <= 3) await gate;
      },
    });
    await vi.waitFor(() => expect(ran).toEqual(['a', 'b', 'c']));
    // The first fetch came back full; its three jobs end together (their ends shared one statement).
    release();
    await vi.waitFor(() => expect(ran).toHaveLength(7));
    await d.stop();
    expect(f.fetches.slice(0, 3)).toEqual([3, 3, 3]);
  });

  it("aborts a job's signal at its expiry with a TimeoutError, and fails the job its handler then throws for", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const f = fakeBoss([job('x', 1)]);
      let started: () => void = () => undefined;
      const running = new Promise<void>((resolve) => (started = resolve));
      let reason: unknown = null;
      const d = startJobDispatcher<{ n: number }>(f.boss, {
        queue: 'q-expiry',
        slots: 1,
        pollingIntervalMs: 600_000,
        logger,
        handle: (_j, signal) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              reason = signal.reason;
              reject(new Error('expired'));
            });
            started();
          }),
      });
      await running;
      // The job's expiry (60 s) passes: its signal aborts.
      vi.advanceTimersByTime(60_000);
      await vi.waitFor(() => expect(f.failed).toEqual(['x']));
      expect((reason as DOMException).name).toBe('TimeoutError');
      await d.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
