import { describe, expect, it } from 'vitest';
import { foundByPolling, wakeIdleWorker, type IdleWaker } from './scouted-work.js';

const worker = (id: string, name: string, count: number, state: 'active' | 'stopping' = 'active') => ({ id, name, count, state });

/** A pg-boss stand-in: its workers' WIP rows, and the workers notified. */
const fakeBoss = (rows: ReturnType<typeof worker>[]) => {
  const notified: string[] = [];
  const boss = {
    getWipData: () => rows,
    notifyWorker: (id: string) => void notified.push(id),
  } as unknown as IdleWaker;
  return { boss, notified };
};

describe('workWithScout: one poller per queue', () => {
  it('wakes one idle worker of the queue, never a busy one, a stopping one or another queue\'s', () => {
    const { boss, notified } = fakeBoss([
      worker('busy', 'gengate-generate', 1),
      worker('other-queue', 'gengate-callback', 0),
      worker('stopping', 'gengate-generate', 0, 'stopping'),
      worker('idle-1', 'gengate-generate', 0),
      worker('idle-2', 'gengate-generate', 0),
    ]);
    expect(wakeIdleWorker(boss, 'gengate-generate')).toBe(true);
    expect(notified).toEqual(['idle-1']);
  });

  it('wakes nobody when every worker of the queue is busy', () => {
    const { boss, notified } = fakeBoss([worker('busy', 'gengate-generate', 1)]);
    expect(wakeIdleWorker(boss, 'gengate-generate')).toBe(false);
    expect(notified).toEqual([]);
  });

  it('tells a job found by polling (due well before its fetch: a delayed retry, a lost wake-up) from one just announced', () => {
    const now = Date.parse('2026-11-26T02:00:00.000Z');
    const at = (ms: number) => new Date(now - ms);
    expect(foundByPolling({ createdOn: at(50), startAfter: at(50) }, now)).toBe(false);
    expect(foundByPolling({ createdOn: at(30_000), startAfter: at(5_000) }, now)).toBe(true);
    expect(foundByPolling({ createdOn: at(30_000), startAfter: at(100) }, now)).toBe(false);
  });
});
