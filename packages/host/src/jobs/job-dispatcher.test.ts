import type { JobWithMetadata } from 'pg-boss';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { jobSettled } from '../postgres/current-job.js';
import { wakeWorkers } from '../postgres/job-wakeups.js';
import { startJobDispatcher, type DispatchBoss } from './job-dispatcher.js';

type Job = JobWithMetadata<{ n: number }>;

/** A pg-boss stand-in: a queue of ready jobs handed out by fetch, and every settle recorded. */
function fakeBoss(ready: Job[]) {
  const fetches: number[] = [];
  const completed: string[] = [];
  const failed: string[] = [];
  let fetched: () => void = () => undefined;
  const boss = {
    fetch: vi.fn(async (_queue: string, opts: { batchSize?: number }) => {
      fetches.push(opts.batchSize ?? 1);
      const jobs = ready.splice(0, opts.batchSize ?? 1);
      fetched();
      return jobs;
    }),
    complete: vi.fn(async (_q: string, a: { id: string }) => {
      completed.push(a.id);
      return {};
    }),
    fail: vi.fn(async (_q: string, a: { id: string }) => {
      failed.push(a.id);
      return {};
    }),
    touch: vi.fn(async () => ({})),
    on: vi.fn(),
    off: vi.fn(),
  };
  const nextFetch = () => new Promise<void>((resolve) => (fetched = resolve));
  return { boss: boss as unknown as DispatchBoss, ready, fetches, completed, failed, nextFetch };
}

const job = (id: string, n: number): Job => ({ id, name: 'q', data: { n }, retryCount: 0, expireInSeconds: 60, heartbeatSeconds: 10 }) as unknown as Job;
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
    expect(f.completed).toEqual(['b']);
    expect(f.failed).toEqual(['c']);
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
});
