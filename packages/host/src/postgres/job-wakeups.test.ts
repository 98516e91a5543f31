import type { WipData } from 'pg-boss';
import { describe, expect, it } from 'vitest';
import { JOBS_READY_CHANNEL, JobWakeups, parseJobsReady, wakeWorkers, type WorkerWaker } from './job-wakeups.js';

function fakeBoss(workers: { id: string; name: string; count: number; state?: WipData['state'] }[]): WorkerWaker & { woken: string[] } {
  const woken: string[] = [];
  return {
    woken,
    getWipData: () => workers.map((w) => ({ state: 'active', ...w }) as unknown as WipData),
    notifyWorker: (id: string) => void woken.push(id),
  };
}

describe('wakeWorkers', () => {
  it('wakes one idle worker per new job, not every worker of the queue', () => {
    const boss = fakeBoss([
      { id: 'g1', name: 'gengate-generate', count: 0 },
      { id: 'g2', name: 'gengate-generate', count: 0 },
      { id: 'g3', name: 'gengate-generate', count: 0 },
      { id: 'c1', name: 'gengate-callback', count: 0 },
    ]);
    expect(wakeWorkers(boss, 'gengate-generate', 1)).toBe(1);
    expect(boss.woken).toEqual(['g1']);
  });

  it('prefers idle workers, then busy ones (they fetch again as soon as their job ends), never more than the jobs', () => {
    const boss = fakeBoss([
      { id: 'busy', name: 'gengate-generate', count: 1 },
      { id: 'idle', name: 'gengate-generate', count: 0 },
      { id: 'stopping', name: 'gengate-generate', count: 0, state: 'stopping' },
    ]);
    expect(wakeWorkers(boss, 'gengate-generate', 5)).toBe(2);
    expect(boss.woken).toEqual(['idle', 'busy']);
  });
});

describe('parseJobsReady', () => {
  it('reads "<queue> <count>" and refuses anything else', () => {
    expect(parseJobsReady('gengate-generate 3')).toEqual({ queue: 'gengate-generate', jobs: 3 });
    expect(parseJobsReady('gengate-generate')).toBeNull();
    expect(parseJobsReady('a b c')).toBeNull();
    expect(parseJobsReady(undefined)).toBeNull();
  });
});

describe('JobWakeups', () => {
  it("sends one turn's wake-ups as one named prepared statement: every queue with how many jobs it got", async () => {
    const sent: { name: string; text: string; values: unknown[] }[] = [];
    let delivered!: () => void;
    const done = new Promise<void>((resolve) => (delivered = resolve));
    const wakeups = new JobWakeups({
      query: async (config) => {
        sent.push(config);
        delivered();
        return { rows: [], rowCount: 0 };
      },
    });
    wakeups.wake('gengate-generate', 2);
    wakeups.wake('gengate-callback');
    wakeups.wake('gengate-generate', 1);
    await done;
    expect(sent).toEqual([
      { name: 'gg_jobs_ready', text: expect.stringContaining('pg_notify($1') as unknown as string, values: [JOBS_READY_CHANNEL, ['gengate-generate', 'gengate-callback'], [3, 1]] },
    ]);
  });
});
